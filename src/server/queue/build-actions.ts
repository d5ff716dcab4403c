import type { Logger } from 'pino';
import type { Build, BuildStore } from '../../core/build.js';
import { ConflictError, InvalidInputError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import type { BuildListener, QueueSignal } from '../../core/events.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Repo, RepoStore } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import { isDone } from '../../core/status.js';
import type { Store } from '../../core/store.js';
import type { BuildWatches } from './build-watches.js';
import { closeSteps } from './finish.js';
import { clip } from './reports.js';
import { notifyListener } from './notify.js';
import { settleBuild, type SettleDeps } from './settle.js';

/** What acting on builds from the API touches and tells. */
export interface BuildActionsDeps {
  store: Pick<Store, 'stages' | 'steps' | 'logs' | 'logBatches'> & {
    repos: Pick<RepoStore, 'find'>;
    builds: Pick<BuildStore, 'find' | 'update'>;
  };
  listener: BuildListener;
  queue: QueueSignal;
  watches: BuildWatches;
  liveLogs: LiveLogs;
  logger: Logger;
  now?: () => number;
}

/** Optimistic writes are tried this often before giving up (someone keeps changing the build). */
const ATTEMPTS = 5;

/**
 * What people do to builds through the API: cancel, approve and decline stages that wait for
 * approval. Every write is optimistic-locked; the build's watchers (runners) and its listener
 * (commit status, webhooks) hear of each change.
 */
export class BuildActions {
  readonly #deps: BuildActionsDeps;
  readonly #now: () => number;
  readonly #settle: SettleDeps;

  constructor(deps: BuildActionsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#settle = { ...deps, store: deps.store, now: this.#now };
  }

  /**
   * Cancels a build that is not done: the build becomes `killed` first — its runners, watching it,
   * stop its steps and remove their containers — then its running (or taken) stages become
   * `killed` with their running steps, and the stages that never started `skipped`. A done build is
   * a ConflictError. Returns the build as cancelled. A build superseded by a newer one
   * (auto-cancel) ends `skipped` instead, as in Drone, so that its commit does not show a failure.
   */
  async cancel(build: Build, by: string, options: { superseded?: boolean } = {}): Promise<Build> {
    const superseded = options.superseded === true;
    const killed = await this.#writeBuild(build, (current) => {
      if (isDone(current.status)) {
        throw new ConflictError(
          `build ${current.number} is already ${current.status}: there is nothing to cancel`,
        );
      }
      const now = this.#now();
      const status = superseded ? 'skipped' : 'killed';
      return { ...current, status, error: '', started: current.started || now, finished: now };
    });
    this.#deps.watches.notify(build.id);
    const message = superseded ? `superseded by ${by}` : `cancelled by ${by}`;
    for (const stage of await this.#deps.store.stages.list(build.id)) {
      if (isDone(stage.status)) continue;
      const ran = stage.status === 'running' || stage.machine !== '';
      await this.#writeStage(stage, (current) => {
        if (isDone(current.status)) return undefined;
        const now = this.#now();
        return ran
          ? {
              ...current,
              status: 'killed',
              error: clip(message),
              started: current.started || now,
              stopped: now,
            }
          : { ...current, status: 'skipped', started: now, stopped: now };
      });
      await closeSteps({ ...this.#deps, now: this.#now }, stage.id, 'killed', message);
    }
    await this.#tell(killed);
    return killed;
  }

  /**
   * Approves stage `number` of a build waiting for approval: it is queued (or waits for the stages
   * it depends on), its deployment counts as approved, and a build that was `blocked` becomes
   * `pending`. Only a `blocked` stage can be approved (INVALID_INPUT otherwise, as in Drone). Who
   * may approve, and how many must, is the ApprovalDesk's concern.
   */
  async approve(build: Build, number: number): Promise<Build> {
    const stage = await this.#blockedStage(build, number, 'approve');
    await this.#writeStage(stage, (current) => {
      if (current.status !== 'blocked') return undefined;
      const { deployment } = current;
      return {
        ...current,
        // Settling below queues it at once when its dependencies are already done.
        status: current.dependsOn.length > 0 ? 'waiting_on_dependencies' : 'pending',
        ...(deployment === undefined ? {} : { deployment: { ...deployment, approved: true } }),
      };
    });
    const approved = await this.#writeBuild(build, (current) =>
      current.status === 'blocked' ? { ...current, status: 'pending' } : current,
    );
    // Settling queues what may run now (a dependency may already be done) and tells the listener.
    await settleBuild(this.#settle, build.id, { stageChanged: true });
    this.#deps.queue.wake();
    return (await this.#deps.store.builds.find(build.id)) ?? approved;
  }

  /**
   * Marks the deployment of stage `number` approved without queuing it: a stage of the same
   * environment that still waits for its dependencies, approved with the one that was blocked,
   * will not wait for approval again. Nothing for a stage that is done or deploys nowhere.
   */
  async markApproved(build: Build, number: number): Promise<void> {
    const stage = (await this.#deps.store.stages.list(build.id)).find((s) => s.number === number);
    if (stage === undefined) return;
    await this.#writeStage(stage, (current) => {
      const { deployment } = current;
      if (deployment === undefined || deployment.approved || isDone(current.status)) return undefined;
      return { ...current, deployment: { ...deployment, approved: true } };
    });
  }

  /**
   * Declines stage `number` of a build waiting for approval: the stage becomes `declined`, the
   * other stages still waiting for approval `skipped`, and the build `declined` — it will not run.
   * In a build that runs (a deployment waiting while its other stages ran), only the stage and
   * what depends on it end; the build ends with the others.
   */
  async decline(build: Build, number: number, by: string): Promise<Build> {
    const stage = await this.#blockedStage(build, number, 'decline');
    await this.#writeStage(stage, (current) => {
      if (current.status !== 'blocked') return undefined;
      const now = this.#now();
      return { ...current, status: 'declined', error: clip(`declined by ${by}`), started: now, stopped: now };
    });
    if (build.status !== 'blocked') {
      // A deployment declined while the rest of the build runs: its dependents are skipped, the build
      // ends when the others do.
      await settleBuild(this.#settle, build.id, { stageChanged: true });
      return (await this.#deps.store.builds.find(build.id)) ?? build;
    }
    for (const other of await this.#deps.store.stages.list(build.id)) {
      if (other.id === stage.id || other.status !== 'blocked') continue;
      await this.#writeStage(other, (current) => {
        if (current.status !== 'blocked') return undefined;
        const now = this.#now();
        return { ...current, status: 'skipped', started: now, stopped: now };
      });
    }
    const declined = await this.#writeBuild(build, (current) => {
      if (isDone(current.status)) return current;
      const now = this.#now();
      return { ...current, status: 'declined', started: current.started || now, finished: now };
    });
    this.#deps.watches.notify(build.id);
    await this.#tell(declined);
    return declined;
  }

  async #blockedStage(build: Build, number: number, verb: string): Promise<Stage> {
    const stages = await this.#deps.store.stages.list(build.id);
    const stage = stages.find((s) => s.number === number);
    if (stage === undefined) throw new NotFoundError(`stage ${number} of build ${build.number}`);
    if (stage.status !== 'blocked') {
      throw new InvalidInputError(
        `cannot ${verb} stage ${number}: it is ${stage.status}, not waiting for approval`,
      );
    }
    return stage;
  }

  /** Writes `change(current)` over the build, reading it again when someone else wrote first. */
  async #writeBuild(build: Build, change: (current: Build) => Build): Promise<Build> {
    let current = build;
    for (let attempt = 0; ; attempt++) {
      const next = change(current);
      if (next === current) return current;
      try {
        return await this.#deps.store.builds.update(next);
      } catch (error) {
        if (!(error instanceof StaleVersionError) || attempt >= ATTEMPTS) throw error;
        const fresh = await this.#deps.store.builds.find(build.id);
        if (fresh === undefined) throw new NotFoundError(`build ${build.number}`);
        current = fresh;
      }
    }
  }

  /** Like #writeBuild for a stage; `change` answers undefined when there is nothing (left) to do. */
  async #writeStage(stage: Stage, change: (current: Stage) => Stage | undefined): Promise<void> {
    let current = stage;
    for (let attempt = 0; ; attempt++) {
      const next = change(current);
      if (next === undefined) return;
      try {
        await this.#deps.store.stages.update(next);
        return;
      } catch (error) {
        if (!(error instanceof StaleVersionError) || attempt >= ATTEMPTS) throw error;
        const fresh = await this.#deps.store.stages.find(stage.id);
        if (fresh === undefined) return;
        current = fresh;
      }
    }
  }

  async #tell(build: Build): Promise<void> {
    const repo: Repo | undefined = await this.#deps.store.repos.find(build.repoId);
    if (repo === undefined) return;
    const stages = await this.#deps.store.stages.list(build.id);
    await notifyListener(this.#deps.listener, { repo, build, stages }, this.#deps.logger);
  }
}
