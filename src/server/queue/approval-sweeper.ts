import type { Logger } from 'pino';
import { PassLoop } from '../pass-loop.js';
import type { BuildStore } from '../../core/build.js';
import type { StageStore } from '../../core/stage.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { ApprovalDesk } from './approval-desk.js';

/** What declining deployments that waited too long needs. */
export interface ApprovalSweeperDeps {
  readonly store: { stages: Pick<StageStore, 'listStatus'>; builds: Pick<BuildStore, 'find'> };
  readonly desk: Pick<ApprovalDesk, 'expire'>;
  readonly logger: Pick<Logger, 'info' | 'warn'>;
  /** Sweeps only while this server holds the jobs' lease (several servers on one database). */
  readonly leader?: Leadership | undefined;
  readonly now?: () => number;
  readonly intervalMs?: number;
}

/** Deadlines are minutes apart at the finest: a deployment is declined at most this late. */
const SWEEP_EVERY_MS = 30_000;

/**
 * Declines the stages that wait for a deployment's approvals past their deadline (the
 * environment's timeout), once the server is ready and every 30 seconds after — after a restart too,
 * since deadlines are stored with the stages.
 */
export class ApprovalSweeper {
  readonly #deps: ApprovalSweeperDeps;
  readonly #now: () => number;
  readonly #loop: PassLoop;

  constructor(deps: ApprovalSweeperDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#loop = new PassLoop(() => this.pass(), deps.intervalMs ?? SWEEP_EVERY_MS);
  }

  start(): void {
    this.#loop.start();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: how many stages it declined. Never throws. */
  async pass(): Promise<number> {
    if (this.#deps.leader?.held === false) return 0;
    let declined = 0;
    try {
      const now = this.#now();
      for (const stage of await this.#deps.store.stages.listStatus('blocked')) {
        const deployment = stage.deployment;
        if (deployment === undefined || deployment.approved || deployment.deadline === 0) continue;
        if (deployment.deadline > now) continue;
        const build = await this.#deps.store.builds.find(stage.buildId);
        if (build === undefined) continue;
        await this.#deps.desk.expire(build, stage);
        declined += 1;
        this.#deps.logger.info(
          { build: build.id, stage: stage.number, environment: deployment.environment },
          'a deployment waited for approval past its timeout: declined',
        );
      }
    } catch (error) {
      // The database may be briefly unreachable; the next pass declines what this one left.
      this.#deps.logger.warn({ err: error }, 'approvals: declining expired deployments failed');
    }
    return declined;
  }
}
