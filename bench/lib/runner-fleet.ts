/*
 * Simulated runners for benchmarks: svc's real poller and RPC client (HTTP on loopback), each
 * runner one polling slot. A runner takes what it is offered and does the least a real runner
 * reports: accept, then the stage running, then the stage successful. Nothing executes.
 */
import pino from 'pino';
import { isConflict, RpcClient, toSeconds, type WireStage } from '../../src/runner/client/index.js';
import { Poller } from '../../src/runner/poller/index.js';

/** Where each stage got to, in performance.now() milliseconds. */
interface Progress {
  /** The request's answer (the stage offered) reached the runner. */
  offered?: number;
  accepted?: number;
  done?: number;
}

/** `count` runners polling `url`; `start` them, `stop` them (waits for the stages under way). */
export class RunnerFleet {
  readonly #pollers: Poller[];
  readonly #progress = new Map<number, Progress>();
  readonly #waiting = new Map<number, { what: keyof Progress; resolve: (at: number) => void }[]>();
  /** Stages this fleet accepted and finished. */
  accepted = 0;
  done = 0;
  /** Accepts lost to another runner (409); requests that failed otherwise, and the first messages. */
  conflicts = 0;
  failures = 0;
  readonly conflictMessages: string[] = [];
  readonly errors: string[] = [];

  constructor(url: string, secret: string, count: number) {
    const logger = pino({ level: 'silent' });
    this.#pollers = Array.from({ length: count }, (_, i) => {
      const machine = `bench-runner-${i + 1}`;
      const client = new RpcClient({
        endpoint: url,
        secret,
        timeouts: { request: 30_000, longPoll: 60_000 },
      });
      return new Poller({
        client,
        filter: {
          kind: 'pipeline',
          type: 'docker',
          os: 'linux',
          arch: 'amd64',
          variant: '',
          kernel: '',
          labels: {},
          limits: undefined,
        },
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

  /** When the stage was offered to a runner (resolves at once when it already was). */
  whenOffered(stageId: number): Promise<number> {
    return this.#when(stageId, 'offered');
  }

  /** When the stage's accept was answered (resolves at once when it already was). */
  whenAccepted(stageId: number): Promise<number> {
    return this.#when(stageId, 'accepted');
  }

  /** When the stage's success was answered. */
  whenDone(stageId: number): Promise<number> {
    return this.#when(stageId, 'done');
  }

  /** The latest accept and the latest success answered so far. */
  last(): { accepted: number; done: number } {
    let accepted = 0;
    let done = 0;
    for (const progress of this.#progress.values()) {
      accepted = Math.max(accepted, progress.accepted ?? 0);
      done = Math.max(done, progress.done ?? 0);
    }
    return { accepted, done };
  }

  #when(stageId: number, what: keyof Progress): Promise<number> {
    const at = this.#progress.get(stageId)?.[what];
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => {
      const list = this.#waiting.get(stageId) ?? [];
      list.push({ what, resolve });
      this.#waiting.set(stageId, list);
    });
  }

  #mark(stageId: number, what: keyof Progress): void {
    const at = performance.now();
    const progress = this.#progress.get(stageId) ?? {};
    progress[what] = at;
    this.#progress.set(stageId, progress);
    const list = this.#waiting.get(stageId);
    if (list === undefined) return;
    const left = list.filter((waiter) => waiter.what !== what);
    for (const waiter of list) if (waiter.what === what) waiter.resolve(at);
    if (left.length === 0) this.#waiting.delete(stageId);
    else this.#waiting.set(stageId, left);
  }

  async #run(client: RpcClient, machine: string, offered: WireStage): Promise<void> {
    this.#mark(offered.id, 'offered');
    let accepted: WireStage;
    try {
      accepted = await client.accept(offered.id, machine);
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
