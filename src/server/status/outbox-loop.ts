import type { Logger } from 'pino';
import type { StatusOutboxStore } from '../../core/status-outbox.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { StatusPoster } from './poster.js';

/** What the retry loop of kept commit statuses needs. */
export interface OutboxLoopDeps {
  readonly outbox: Pick<StatusOutboxStore, 'due' | 'expire'>;
  readonly poster: Pick<StatusPoster, 'retry'>;
  readonly logger: Logger;
  /** How often the outbox is looked at (default 5 s). */
  readonly intervalMs?: number;
  /** Looks only while this server holds the jobs' lease (several servers on one database). */
  readonly leader?: Leadership | undefined;
  readonly now?: () => number;
}

/** Entries tried in one pass at most: a long outbox drains over several passes. */
const BATCH = 20;
/** A kept status older than this describes a commit nobody looks at any more: it is dropped. */
export const OUTBOX_MAX_AGE_MS = 24 * 3600_000;
/** Expired entries are looked for once an hour, not at every pass. */
const EXPIRE_EVERY_MS = 3600_000;
/** The longest pause after failures: a provider that stays down is asked once per this at most. */
const MAX_PAUSE_MS = 5 * 60_000;

/**
 * Posts the commit statuses kept in the outbox once they are due (StatusPoster.retry), from when the
 * server is ready until it closes, so a status the provider did not take — while down or
 * rate-limited, or before a restart — reaches it later. Kept cheap while the provider stays down: a
 * pass stops at the first failure, and passes then pause (10 s, doubling, up to 5 minutes) until one
 * status is posted again. Of several servers on one database only the holder of the jobs' lease
 * looks (`leader`), so that a kept status is not posted by two servers racing each other.
 */
export class StatusOutboxLoop {
  readonly #deps: OutboxLoopDeps;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;
  #pausedUntil = 0;
  #failures = 0;
  #lastExpiry = 0;

  constructor(deps: OutboxLoopDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops looking; resolves once a pass under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** One look at the outbox: the due entries, in order, until one fails. Never throws. */
  async pass(): Promise<void> {
    const now = this.#now();
    if (now < this.#pausedUntil || this.#deps.leader?.held === false) return;
    try {
      if (now - this.#lastExpiry >= EXPIRE_EVERY_MS) {
        this.#lastExpiry = now;
        const expired = await this.#deps.outbox.expire(now - OUTBOX_MAX_AGE_MS);
        if (expired > 0)
          this.#deps.logger.warn({ expired }, 'commit statuses older than a day dropped unposted');
      }
      for (const entry of await this.#deps.outbox.due(now, BATCH)) {
        if (this.#stopped) return;
        const outcome = await this.#deps.poster.retry(entry);
        if (outcome.kind === 'kept') {
          this.#failures += 1;
          this.#pausedUntil =
            this.#now() + Math.min(MAX_PAUSE_MS, 10_000 * 2 ** Math.min(this.#failures - 1, 10));
          return;
        }
        this.#failures = 0;
        if (outcome.kind === 'posted') {
          this.#deps.logger.info(
            { commit: entry.commit, state: entry.status.state, attempts: entry.attempts + 1 },
            'commit status posted from the outbox',
          );
        }
      }
    } catch (error) {
      // The database may be briefly unreachable; the next pass looks again.
      this.#deps.logger.warn({ err: error }, 'commit status outbox: a pass failed');
    }
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.pass().finally(() => {
        this.#running = undefined;
        this.#schedule(this.#deps.intervalMs ?? 5000);
      });
    }, delay);
    this.#timer.unref();
  }
}
