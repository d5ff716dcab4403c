/*
 * Simulated runners for benchmarks: svc's real poller and RPC client (HTTP on loopback), each
 * runner one polling slot. A runner takes what it is offered and does the least a real runner
 * reports: the stage running, then the stage successful (it claims as it asks, as svc's runners
 * do, so there is no accept). Nothing executes.
 */
import pino from 'pino';
import { isConflict, RpcClient, toSeconds, type WireStage } from '../../src/runner/client/index.js';
import { Poller } from '../../src/runner/poller/index.js';
import { FleetProgress, type Milestone } from './fleet-progress.js';
import { linuxDockerFilter } from '../../src/runner/testing/filter.js';

/** What the dispatch benchmark reads of its runners, wherever they run. */
export interface Fleet {
  /** Stages accepted and finished. */
  readonly accepted: number;
  readonly done: number;
  /** Requests that failed other than by losing an accept (409), and the first messages. */
  readonly failures: number;
  readonly errors: readonly string[];
  start(): void;
  /** Stops polling and waits for the stages under way. */
  stop(): Promise<void>;
  /** When the stage's accept was answered, in this process's performance.now() milliseconds. */
  whenAccepted(stageId: number): Promise<number>;
  /** When the stage's success was answered. */
  whenDone(stageId: number): Promise<number>;
  /** The latest accept and the latest success answered so far. */
  last(): { accepted: number; done: number };
}

/** Hears every milestone as it happens (`at` in performance.now() milliseconds). */
export type MilestoneListener = (stageId: number, what: Milestone, at: number) => void;

/** `count` runners polling `url` in this process; `start` them, `stop` them. */
export class RunnerFleet implements Fleet {
  readonly #pollers: Poller[];
  readonly #progress = new FleetProgress();
  readonly #onMilestone: MilestoneListener | undefined;
  accepted = 0;
  done = 0;
  /** Accepts lost to another runner (409), and the first messages. */
  conflicts = 0;
  failures = 0;
  readonly conflictMessages: string[] = [];
  readonly errors: string[] = [];

  constructor(url: string, secret: string, count: number, onMilestone?: MilestoneListener) {
    this.#onMilestone = onMilestone;
    const logger = pino({ level: 'silent' });
    this.#pollers = Array.from({ length: count }, (_, i) => {
      const machine = `bench-runner-${i + 1}`;
      const client = new RpcClient({
        endpoint: url,
        secret,
        // Named in X-SVC-Runner, as svc's runners are: the server checks that it holds what it reports.
        runner: machine,
        timeouts: { request: 30_000, longPoll: 60_000 },
      });
      // As svc's runners ask: named, and claiming what they are offered (no accept round trip).
      const filter = {
        ...linuxDockerFilter(undefined, {
          name: machine,
          kind: 'docker',
          capacity: 1,
          max_procs: 0,
          version: 'bench',
        }),
        claim: true,
      };
      return new Poller({
        client,
        filter,
        capacity: 1,
        run: (stage) => this.#run(client, machine, stage),
        logger,
        backoff: { min: 50, max: 500 },
      });
    });
  }

  start(): void {
    for (const poller of this.#pollers) poller.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#pollers.map((poller) => poller.stop({ grace: 10_000, report: 2_000 })));
  }

  whenAccepted(stageId: number): Promise<number> {
    return this.#progress.when(stageId, 'accepted');
  }

  whenDone(stageId: number): Promise<number> {
    return this.#progress.when(stageId, 'done');
  }

  last(): { accepted: number; done: number } {
    return this.#progress.last();
  }

  #mark(stageId: number, what: Milestone): void {
    const at = performance.now();
    this.#progress.mark(stageId, what, at);
    this.#onMilestone?.(stageId, what, at);
  }

  async #run(client: RpcClient, machine: string, offered: WireStage): Promise<void> {
    this.#mark(offered.id, 'offered');
    let accepted: WireStage = offered;
    try {
      if (offered.machine !== machine) accepted = await client.accept(offered.id, machine);
    } catch (error) {
      if (isConflict(error)) {
        this.conflicts++;
        if (this.conflictMessages.length < 3) this.conflictMessages.push((error as Error).message);
      } else this.#failed(error);
      return;
    }
    this.accepted++;
    this.#mark(offered.id, 'accepted');
    try {
      const running = await client.updateStage({
        ...accepted,
        status: 'running',
        started: toSeconds(Date.now()),
        steps: [],
      });
      await client.updateStage({ ...running, status: 'success', stopped: toSeconds(Date.now()), steps: [] });
      this.done++;
      this.#mark(offered.id, 'done');
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    this.failures++;
    if (this.errors.length < 3) this.errors.push(error instanceof Error ? error.message : String(error));
  }
}
