import type { Logger } from 'pino';
import type { CacheService } from './service.js';

/** How often caches are looked over: expiry is in days, so an hour is soon enough. */
const EVERY_MS = 60 * 60_000;

/**
 * Removes, every hour and once at start, the caches unused for SVC_CACHE_MAX_AGE (a batch at a time
 * until none is left) and what interrupted writes left on the server's disk. Several servers may
 * each run one: removing an entry twice is harmless.
 */
export class CacheJanitor {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      caches: Pick<CacheService, 'expire'>;
      /** The disk store's leftovers of interrupted writes, idle for an hour; absent with a bucket. */
      removeUnfinished?: (idleMs: number) => Promise<number>;
      logger: Pick<Logger, 'info' | 'warn'>;
      every?: number;
    },
  ) {}

  start(): void {
    const tick = () => {
      this.#running ??= this.#sweep().finally(() => (this.#running = undefined));
    };
    tick();
    this.#timer = setInterval(tick, this.deps.every ?? EVERY_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  async #sweep(): Promise<void> {
    try {
      let expired = 0;
      for (let round = 0; round < 100; round += 1) {
        const gone = await this.deps.caches.expire();
        expired += gone;
        if (gone === 0) break;
      }
      const unfinished = (await this.deps.removeUnfinished?.(EVERY_MS)) ?? 0;
      if (expired + unfinished > 0)
        this.deps.logger.info(
          { expired, unfinished },
          'caches: removed the expired ones and interrupted writes',
        );
    } catch (error) {
      this.deps.logger.warn(
        { err: error },
        'caches: the hourly clean-up failed; it is tried again in an hour',
      );
    }
  }
}
