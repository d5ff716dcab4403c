import type { Logger } from 'pino';
import type { QueueStore } from '../../core/queue.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { StageScheduler } from './scheduler.js';

/** What the watchdog needs and how strict it is. */
export interface HeartbeatWatchdogOptions {
  store: { queue: Pick<QueueStore, 'listStale'> };
  scheduler: Pick<StageScheduler, 'fail' | 'requeue'>;
  logger: Logger;
  /** A taken stage without a heartbeat for this long has lost its runner (default 40 s: four beats). */
  timeout?: number;
  /** How often stages are checked (default 10 s: a dead runner is noticed within timeout + interval, 50 s). */
  interval?: number;
  /** Checks only while this server holds the jobs' lease (several servers on one database). */
  leader?: Leadership;
  now?: () => number;
}

/**
 * Fails the stages whose runner stopped sending heartbeats — killed, crashed, cut off — as `error`,
 * with a message naming the runner, instead of leaving them running until a reaper gives up on the
 * build. A stage its runner took and never reported running is queued again instead: nothing of
 * it ran (a claim whose answer was lost on the way, a runner that died right after taking it). Their build is then settled like after any other stage end (dependents, status, listener).
 * With several servers on one database only the holder of the jobs' lease checks (`leader`); failing
 * a stage is an optimistic-locked write anyway, so two checks at once would still fail it once.
 */
export class HeartbeatWatchdog {
  readonly #options: HeartbeatWatchdogOptions;
  readonly #timeout: number;
  readonly #interval: number;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<unknown> = Promise.resolve();
  #startedAt = 0;

  constructor(options: HeartbeatWatchdogOptions) {
    this.#options = options;
    this.#timeout = options.timeout ?? 40_000;
    this.#interval = options.interval ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Checks every `interval` until `stop`. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#startedAt = this.#now();
    this.#timer = setInterval(() => {
      if (this.#options.leader?.held === false) return;
      this.#sweeping = this.#sweeping
        .then(() => this.sweep())
        .catch((error: unknown) => {
          this.#options.logger.error({ err: error }, 'heartbeat watchdog: checking stages failed');
        });
    }, this.#interval);
    this.#timer.unref();
  }

  /** Stops checking and waits for a check under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /**
   * Fails every started stage whose runner is silent for longer than the timeout (and queues again
   * those never started); returns how many it failed. Silence
   * is only counted while this watchdog runs and the database answers: after a server restart, or
   * a database outage (the stale stages cannot be read), runners that kept trying get a whole
   * timeout to get through before their stages are judged.
   */
  async sweep(): Promise<number> {
    const now = this.#now();
    if (now - this.#startedAt < this.#timeout) return 0;
    let failed = 0;
    try {
      for (const stage of await this.#options.store.queue.listStale(now - this.#timeout)) {
        const silent = Math.round((now - stage.heartbeat) / 1000);
        if (stage.status === 'pending') {
          // Taken, never started: nothing of it ran, so another runner can run it from the start.
          if (await this.#options.scheduler.requeue(stage)) {
            this.#options.logger.warn(
              { stage: stage.id, build: stage.buildId, runner: stage.machine },
              `runner "${stage.machine}" took the stage and never started it (no sign of life for ${silent} s): queued again`,
            );
          }
          continue;
        }
        const message = `runner "${stage.machine}" stopped sending heartbeats: no sign of life for ${silent} s`;
        if (await this.#options.scheduler.fail(stage.id, message)) {
          failed++;
          this.#options.logger.warn(
            { stage: stage.id, build: stage.buildId, runner: stage.machine },
            message,
          );
        }
      }
    } catch (error) {
      // The database is unreachable (or full): runners' heartbeats could not be stored either, so
      // silence is counted again from now, as after a restart, instead of failing every stage
      // whose runner kept beating through the outage.
      this.#startedAt = this.#now();
      throw error;
    }
    return failed;
  }
}
