import type { QueueSignal } from '../../core/events.js';
import type { QueuedStage, QueueStore, QueueSwitch } from '../../core/queue.js';
import type { Stage } from '../../core/stage.js';
import { matchesFilter, type WireFilter } from '../../runner/client/wire/index.js';
import { Offers } from './offers.js';

/** What the queue needs and how long it waits. */
export interface StageQueueOptions {
  store: { queue: Pick<QueueStore, 'listQueued' | 'pausedSince' | 'setPaused'> };
  /** How long a runner's request waits for a stage before it is answered "nothing" (Drone: 30 s). */
  longPoll?: number;
  /**
   * How often the queue looks at the database for its waiting requests without being woken:
   * stages queued by another server replica (or while no wake-up came) reach runners at least
   * this often.
   */
  recheck?: number;
  /**
   * How long a stage handed to one runner is held back from the others of this server while that
   * runner accepts it; after that it is offered again (the runner may have died meanwhile).
   */
  offerTtl?: number;
  /**
   * Most queued stages read per query: the queue is read oldest first, a page at a time; the first
   * page of a scan holds about as many stages as requests wait (plus those on offer), and each
   * further page twice as many as the one before, up to this.
   */
  page?: number;
  /** Tells the other servers of the database that stages were queued or released (docs/ha.md). */
  announce?: () => void;
  now?: () => number;
}

/**
 * A page of the queue: the queued stages with an id above `after`, oldest first, at most `limit`.
 * SqlQueueStore.listQueued takes it; a store that ignores it answers the whole queue, which the
 * queue then reads as one page (so any QueueStore works, only slower).
 */
export interface QueuePage {
  after: number;
  limit: number;
}

/** The store's listQueued, called with a page (see QueuePage). */
export function pagedQueue(
  store: Pick<QueueStore, 'listQueued'>,
): (page?: QueuePage) => Promise<QueuedStage[]> {
  return store.listQueued.bind(store);
}

/** A request waiting for a stage; `settle` ends it (with a stage, nothing, or the scan's error). */
interface Waiter {
  readonly filter: WireFilter;
  settle(result: { stage?: Stage; error?: Error }): void;
}

/** The default largest page. */
const PAGE = 500;
/** Stages read beyond the number of waiting requests and offers, on a scan's first page. */
const SLACK = 8;

/**
 * The runners' view of the queue, which itself lives in the database (pending stages no runner took).
 * `request` long-polls: the request joins the waiting ones and is answered as soon as a queued stage
 * suits its filter, or with nothing at its time limit.
 *
 * Waiting requests are served together: one scan reads the queue, oldest first and a page at a
 * time, and hands each stage to the longest-waiting request it suits, until every request has one
 * or the queue is read to its end. A scan runs when a request arrives, on `wake()` (stages were
 * queued), and every `recheck` while requests wait; requests that arrive during a scan, and
 * wake-ups during it, get one more scan right after. So a new stage costs one query whatever the
 * number of runners waiting, and a busy queue one query per batch of requests, not per request.
 *
 * Handing out is first-runner-wins: a stage is only taken by the optimistic-locked accept, so any
 * number of server replicas can share the database (PostgreSQL, MySQL, even SQLite). To spare
 * runners of the same server from racing for one stage, each stage is offered to one request at a
 * time (for `offerTtl`); requests on other replicas may still get it, and the losers of the accept
 * get 409 and ask again. The pipeline's concurrency `limit` counts taken stages plus offered ones;
 * so does the repository's `throttle` (builds with a taken or offered stage).
 *
 * Paused (`pause`, DELETE /api/queue), the queue hands out nothing: requests wait as if it were
 * empty; stages already taken go on. The switch is in the database, read at most once per
 * `recheck` while requests wait, so a pause or resume on another server sharing the database
 * holds here within `recheck`; `resume` on this server serves its waiting requests at once.
 */
export class StageQueue implements QueueSignal, QueueSwitch {
  readonly #list: (page?: QueuePage) => Promise<QueuedStage[]>;
  readonly #store: Pick<QueueStore, 'pausedSince' | 'setPaused'>;
  /** The pause switch as last read (epoch ms of the pause, 0 = running), and when it was read. */
  #paused = { since: 0, read: Number.NEGATIVE_INFINITY };
  readonly #longPoll: number;
  readonly #recheck: number;
  readonly #offerTtl: number;
  readonly #page: number;
  readonly #now: () => number;
  readonly #announce: () => void;
  readonly #offers = new Offers();
  /** Stages taken since the scan under way began: its reads may still show them queued. */
  readonly #taken = new Set<number>();
  /** Waiting requests, longest-waiting first. */
  readonly #waiters: Waiter[] = [];
  #scheduled = false;
  #scanning = false;
  #again = false;
  #recheckTimer: NodeJS.Timeout | undefined;

  constructor(options: StageQueueOptions) {
    this.#list = pagedQueue(options.store.queue);
    this.#store = options.store.queue;
    this.#longPoll = options.longPoll ?? 30_000;
    this.#recheck = options.recheck ?? 5_000;
    this.#offerTtl = options.offerTtl ?? 10_000;
    this.#page = Math.max(1, options.page ?? PAGE);
    this.#now = options.now ?? Date.now;
    this.#announce = options.announce ?? (() => undefined);
  }

  /**
   * New stages are queued (or a stage was released): the waiting requests look again now, and so
   * do those of the other servers of the database.
   */
  wake(): void {
    this.#announce();
    this.heard();
  }

  /** Another server queued or released stages: the requests waiting here look again now. */
  heard(): void {
    if (this.#waiters.length > 0) this.#scan();
  }

  /**
   * The oldest queued stage that suits `filter`, waiting up to `wait` (the long-poll limit) for one;
   * undefined when none came or `signal` aborted (the runner went away, the server is closing).
   * Rejects when the database cannot be read.
   */
  request(filter: WireFilter, signal: AbortSignal, wait = this.#longPoll): Promise<Stage | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const settle = ({ stage, error }: { stage?: Stage; error?: Error }): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        const i = this.#waiters.indexOf(waiter);
        if (i >= 0) this.#waiters.splice(i, 1);
        if (this.#waiters.length === 0) this.#stopRecheck();
        if (error === undefined) resolve(stage);
        else reject(error);
      };
      const end = (): void => settle({});
      const waiter: Waiter = { filter, settle };
      const timer = setTimeout(end, Math.max(0, wait));
      signal.addEventListener('abort', end, { once: true });
      this.#waiters.push(waiter);
      this.#scan();
    });
  }

  /**
   * The stage offered to a request did not reach its runner (the connection closed first): it is
   * offered again at once instead of after `offerTtl`.
   */
  release(stageId: number): void {
    if (this.#offers.delete(stageId)) this.wake();
  }

  /** The stage was accepted (or is gone): its offer no longer holds anything back. */
  taken(stageId: number): void {
    this.#offers.delete(stageId);
    // A read of the queue under way may have started before the stage was taken.
    if (this.#scanning) this.#taken.add(stageId);
  }

  /** Pauses the queue for every server of the database (DELETE /api/queue); idempotent. */
  async pause(): Promise<void> {
    const since = (await this.pausedSince()) || this.#now();
    await this.#store.setPaused(since);
    this.#paused = { since, read: this.#now() };
  }

  /** Resumes the queue (POST /api/queue): the waiting requests are served at once. */
  async resume(): Promise<void> {
    await this.#store.setPaused(0);
    this.#paused = { since: 0, read: this.#now() };
    this.wake();
  }

  /** When the queue was paused (epoch milliseconds), 0 when it runs; read from the database. */
  async pausedSince(): Promise<number> {
    const since = await this.#store.pausedSince();
    this.#paused = { since, read: this.#now() };
    return since;
  }

  /** How long a request waits for a stage before it is answered "nothing", milliseconds. */
  get longPoll(): number {
    return this.#longPoll;
  }

  /** Requests waiting right now. */
  get waiting(): number {
    return this.#waiters.length;
  }

  /**
   * Scans soon: requests that arrive in the same turn of the event loop are served by one scan
   * (at the next check phase, setImmediate), or right after the scan under way.
   */
  #scan(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#scanNow();
    });
  }

  #scanNow(): void {
    if (this.#scanning) {
      this.#again = true;
      return;
    }
    this.#scanning = true;
    void this.#scanLoop();
  }

  async #scanLoop(): Promise<void> {
    try {
      do {
        this.#again = false;
        if (this.#waiters.length === 0) break;
        try {
          await this.#serve();
        } catch (error) {
          // The database cannot be read: the requests waiting now fail (runners back off and ask again).
          const failure =
            error instanceof Error ? error : new Error('reading the queue failed', { cause: error });
          for (const waiter of [...this.#waiters]) waiter.settle({ error: failure });
        }
      } while (this.#again);
    } finally {
      this.#scanning = false;
      this.#armRecheck();
    }
  }

  /** Reads the queue page by page and offers its stages to the waiting requests. */
  async #serve(): Promise<void> {
    this.#offers.expire(this.#now());
    if (this.#now() - this.#paused.read >= this.#recheck) await this.pausedSince();
    // Paused: the requests wait (the recheck reads the switch again).
    if (this.#paused.since > 0) return;
    // What was taken before this scan's first read is no longer queued in the database.
    this.#taken.clear();
    let after = 0;
    let limit = Math.min(this.#page, this.#waiters.length + this.#offers.size + SLACK);
    for (; ; limit = Math.min(this.#page, limit * 2)) {
      const rows = await this.#list({ after, limit });
      let read = 0;
      for (const row of rows) {
        if (row.stage.id <= after) continue;
        read++;
        after = row.stage.id;
        this.#offer(row);
        if (this.#waiters.length === 0) return;
      }
      if (read === 0 || rows.length < limit) return;
    }
  }

  /** Offers a queued stage to the longest-waiting request it suits, if any; synchronous, so no stage goes to two. */
  #offer(queued: QueuedStage): void {
    const { stage, repo, build } = queued;
    if (this.#offers.has(stage.id) || this.#taken.has(stage.id) || this.#offers.holds(queued)) return;
    const facts = { stage, labels: stage.labels, repo, event: build.event };
    const waiter = this.#waiters.find((w) => matchesFilter(w.filter, facts));
    if (waiter === undefined) return;
    this.#offers.add(queued, this.#now() + this.#offerTtl);
    waiter.settle({ stage });
  }

  /** While requests wait, the database is read again every `recheck` after the last scan. */
  #armRecheck(): void {
    this.#stopRecheck();
    if (this.#waiters.length === 0) return;
    this.#recheckTimer = setTimeout(() => {
      this.#recheckTimer = undefined;
      this.#scan();
    }, this.#recheck);
    this.#recheckTimer.unref();
  }

  #stopRecheck(): void {
    clearTimeout(this.#recheckTimer);
    this.#recheckTimer = undefined;
  }
}
