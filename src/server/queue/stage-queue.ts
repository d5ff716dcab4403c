import type { QueueSignal } from '../../core/events.js';
import type { QueuedStage, QueueStore } from '../../core/queue.js';
import type { Stage } from '../../core/stage.js';
import { matchesFilter, type WireFilter } from '../../runner/client/wire/index.js';
import { Wakeups } from './wakeups.js';

/** What the queue needs and how long it waits. */
export interface StageQueueOptions {
  store: { queue: QueueStore };
  /** How long a runner's request waits for a stage before it is answered "nothing" (Drone: 30 s). */
  longPoll?: number;
  /**
   * How often a waiting request looks at the database without being woken: stages queued by
   * another server replica (or while no wake-up came) reach runners at least this often.
   */
  recheck?: number;
  /**
   * How long a stage handed to one runner is held back from the others of this server while that
   * runner accepts it; after that it is offered again (the runner may have died meanwhile).
   */
  offerTtl?: number;
  now?: () => number;
}

interface Offer {
  expires: number;
  pipeline: string;
}

/** The queue key every request sleeps on: any new stage may suit any runner. */
const ANY = 'queue';

/**
 * The runners' view of the queue, which itself lives in the database (pending stages no runner took).
 * `request` long-polls: it answers at once when a queued stage suits the runner's filter, otherwise
 * it sleeps until `wake()` (called when stages are queued), the periodic re-check, or its time limit.
 *
 * Handing out is first-runner-wins: a stage is only taken by the optimistic-locked accept, so any
 * number of server replicas can share the database (PostgreSQL, MySQL, even SQLite). To spare
 * runners of the same server from racing for one stage, each stage is offered to one request at a
 * time (for `offerTtl`); requests on other replicas may still get it, and the losers of the accept
 * get 409 and ask again. The pipeline's concurrency `limit` counts taken stages plus offered ones.
 */
export class StageQueue implements QueueSignal {
  readonly #store: QueueStore;
  readonly #longPoll: number;
  readonly #recheck: number;
  readonly #offerTtl: number;
  readonly #now: () => number;
  readonly #wakeups = new Wakeups<string>();
  readonly #offers = new Map<number, Offer>();

  constructor(options: StageQueueOptions) {
    this.#store = options.store.queue;
    this.#longPoll = options.longPoll ?? 30_000;
    this.#recheck = options.recheck ?? 5_000;
    this.#offerTtl = options.offerTtl ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** New stages are queued (or a stage was released): every waiting request looks again now. */
  wake(): void {
    this.#wakeups.wake(ANY);
  }

  /**
   * The oldest queued stage that suits `filter`, waiting up to the long-poll limit for one;
   * undefined when none came or `signal` aborted (the runner went away, the server is closing).
   */
  async request(filter: WireFilter, signal: AbortSignal): Promise<Stage | undefined> {
    const deadline = this.#now() + this.#longPoll;
    for (;;) {
      if (signal.aborted) return undefined;
      const found = this.#pick(await this.#store.listQueued(), filter);
      if (found !== undefined) return found;
      const left = deadline - this.#now();
      if (left <= 0 || signal.aborted) return undefined;
      await this.#wakeups.sleep(ANY, Math.min(left, this.#recheck), signal);
    }
  }

  /** The stage was accepted (or is gone): its offer no longer holds anything back. */
  taken(stageId: number): void {
    this.#offers.delete(stageId);
  }

  /** Requests waiting right now. */
  get waiting(): number {
    return this.#wakeups.sleeping;
  }

  /** Chooses and offers a stage; synchronous, so two requests of this server never get the same one. */
  #pick(queued: readonly QueuedStage[], filter: WireFilter): Stage | undefined {
    const now = this.#now();
    for (const [id, offer] of this.#offers) if (offer.expires <= now) this.#offers.delete(id);
    for (const { stage, repo, build, active } of queued) {
      if (this.#offers.has(stage.id)) continue;
      const pipeline = `${stage.repoId}/${stage.name}`;
      if (stage.limit > 0 && active + this.#offered(pipeline) >= stage.limit) continue;
      if (!matchesFilter(filter, { stage, labels: stage.labels, repo, event: build.event })) continue;
      this.#offers.set(stage.id, { expires: now + this.#offerTtl, pipeline });
      return stage;
    }
    return undefined;
  }

  #offered(pipeline: string): number {
    let count = 0;
    for (const offer of this.#offers.values()) if (offer.pipeline === pipeline) count++;
    return count;
  }
}
