import type { Logger } from 'pino';

/** How often stored files are looked over: expiry is in days, so an hour is soon enough. */
const EVERY_MS = 60 * 60_000;

/** Rounds of one sweep per pass, each a batch: bounded, and the next pass goes on. */
const MAX_ROUNDS = 100;

/** One kind of stored files to clean up: `run` removes a batch and answers how many went (0: done). */
export interface StorageSweep {
  name: string;
  run(): Promise<number>;
}

/**
 * Every hour, and once at start: caches unused for SVC_CACHE_MAX_AGE, expired artifacts and those
 * of purged builds (each sweep a batch at a time until none is left), and what interrupted writes
 * left on the server's disk. Several servers may each run one: removing something twice is harmless.
 */
export class StorageJanitor {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(
    private readonly deps: {
      sweeps: readonly StorageSweep[];
      /** The disk store's leftovers of interrupted writes, idle for an hour; absent with a bucket. */
      removeUnfinished?: (idleMs: number) => Promise<number>;
      logger: Pick<Logger, 'info' | 'warn'>;
      every?: number;
    },
  ) {}

  start(): void {
    const tick = () => {
      this.#running ??= this.#pass().finally(() => (this.#running = undefined));
    };
    tick();
    this.#timer = setInterval(tick, this.deps.every ?? EVERY_MS);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  async #pass(): Promise<void> {
    const removed: Record<string, number> = {};
    for (const sweep of this.deps.sweeps) {
      try {
        let total = 0;
        for (let round = 0; round < MAX_ROUNDS; round += 1) {
          const gone = await sweep.run();
          total += gone;
          if (gone === 0) break;
        }
        if (total > 0) removed[sweep.name] = total;
      } catch (error) {
        this.deps.logger.warn(
          { err: error },
          `${sweep.name}: the hourly clean-up failed; it is tried again in an hour`,
        );
      }
    }
    try {
      const unfinished = (await this.deps.removeUnfinished?.(EVERY_MS)) ?? 0;
      if (unfinished > 0) removed['interrupted writes'] = unfinished;
    } catch (error) {
      this.deps.logger.warn(
        { err: error },
        'removing interrupted writes failed; it is tried again in an hour',
      );
    }
    if (Object.keys(removed).length > 0) this.deps.logger.info({ removed }, 'stored files cleaned up');
  }
}
