import type { Logger } from 'pino';
import type { LeaseStore } from '../../core/cluster.js';

/** Whether this server is the one of the database that runs the once-per-cluster jobs right now. */
export interface Leadership {
  readonly held: boolean;
}

/** What a lease keeper needs and how it paces itself. */
export interface LeaseKeeperOptions {
  leases: LeaseStore;
  /** The lease's name, one per job (or set of jobs) that must run on one server at a time. */
  name: string;
  /** This server's name in the lease (unique per process). */
  holder: string;
  logger: Logger;
  /** How long a taken lease runs without renewal (default 30 s): a dead holder's jobs stop that long. */
  ttl?: number;
  /** How often the lease is renewed or tried for (default 10 s). */
  every?: number;
  now?: () => number;
}

/**
 * Keeps trying for a lease and renews it while held: of several servers on one database, one holds
 * it and runs the jobs it guards (heartbeat watchdog, reaper, cron); when that server dies, another
 * takes the lease within `ttl` + `every`. `held` is counted from when the last successful try BEGAN,
 * so this server stops believing it holds the lease before the database lets anyone else take it —
 * provided the servers' clocks agree to within a few seconds (NTP), as the lease's expiry is written
 * with the holder's clock and compared with the others'.
 */
export class LeaseKeeper implements Leadership {
  readonly #options: LeaseKeeperOptions;
  readonly #ttl: number;
  readonly #every: number;
  readonly #now: () => number;
  #heldUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #trying: Promise<void> = Promise.resolve();
  #failing = false;

  constructor(options: LeaseKeeperOptions) {
    this.#options = options;
    this.#ttl = options.ttl ?? 30_000;
    this.#every = options.every ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  get held(): boolean {
    return this.#now() < this.#heldUntil;
  }

  /** Tries now, then every `every` until `stop`; resolves after the first try. */
  start(): Promise<void> {
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => void this.#tryOnce(), this.#every);
      this.#timer.unref();
    }
    return this.#tryOnce();
  }

  /** Stops renewing and gives the lease up, so that another server takes it at once. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#trying;
    if (this.#heldUntil === 0) return;
    this.#heldUntil = 0;
    await this.#options.leases.release(this.#options.name, this.#options.holder).catch(() => undefined);
  }

  #tryOnce(): Promise<void> {
    this.#trying = this.#trying.then(async () => {
      const began = this.#now();
      const { leases, name, holder, logger } = this.#options;
      try {
        const had = this.held;
        const got = await leases.acquire(name, holder, began, this.#ttl);
        this.#heldUntil = got ? began + this.#ttl : 0;
        if (got !== had) logger.info(`lease "${name}": ${got ? 'taken' : 'held by another server'}`);
        this.#failing = false;
      } catch (error) {
        // Kept until it runs out: a database outage shorter than the lease changes nothing.
        if (!this.#failing) logger.warn({ err: error }, `lease "${name}": cannot renew it`);
        this.#failing = true;
      }
    });
    return this.#trying;
  }
}
