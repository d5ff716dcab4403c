import type { Logger } from 'pino';
import type { RpcClient } from '../client/client.js';
import type { WireFilter, WireStage } from '../client/wire/index.js';
import { Backoff, DEFAULT_BACKOFF, sleep, type BackoffOptions } from '../remote/backoff.js';
import type { RunSignals } from '../remote/stage-runner.js';

/** What the poller needs. */
export interface PollerOptions {
  client: Pick<RpcClient, 'request'>;
  /** What this runner asks the server for. */
  filter: WireFilter;
  /**
   * How many stages run at once (SVC_RUNNER_CAPACITY): one polling loop each. 0 is no limit: one
   * loop waits for work at any time, and each stage it takes starts another (the ssh runner's default).
   */
  capacity: number;
  /** Runs one offered stage to its end. */
  run(stage: WireStage, signals: RunSignals): Promise<void>;
  logger: Logger;
  backoff?: BackoffOptions;
}

/** How `stop` ends the work under way. */
export interface StopOptions {
  /** Milliseconds running stages may take to finish on their own. */
  grace: number;
  /** Then they are cancelled, and get this long to report how they ended. */
  report: number;
}

/**
 * Asks the server for work and runs it, `capacity` stages at a time: each slot long-polls
 * `POST /rpc/v2/stage`, runs what it gets, and asks again. A server that cannot be reached is
 * asked again after a growing pause (1 s … 30 s). `stop` ends it in order: no new stage is asked
 * for, running ones finish (within a grace time), then are cancelled, then abandoned.
 */
export class Poller {
  readonly #options: PollerOptions;
  readonly #polling = new AbortController();
  readonly #cancel = new AbortController();
  readonly #abandon = new AbortController();
  /** The loops running now; a loop leaves when it ends (without a limit they come and go). */
  readonly #slots = new Set<Promise<void>>();
  #spawned = 0;
  #running = 0;
  /** The stages this runner runs now, by id: a stage offered again while it runs is not run twice. */
  readonly #runningIds = new Set<number>();
  /** Loops waiting for a stage right now. */
  #idle = 0;

  constructor(options: PollerOptions) {
    this.#options = options;
  }

  /** Starts the polling loops. */
  start(): void {
    if (this.#spawned > 0) return;
    const loops = this.#unlimited ? 1 : this.#options.capacity;
    for (let slot = 0; slot < loops; slot++) this.#spawn();
  }

  get #unlimited(): boolean {
    return this.#options.capacity <= 0;
  }

  #spawn(): void {
    const loop = this.#loop(this.#spawned++);
    this.#slots.add(loop);
    // The loop's own outcome goes to `stop`, which awaits it; this only forgets it.
    const forget = (): void => void this.#slots.delete(loop);
    loop.then(forget, forget);
  }

  /** Sizes for the runner's /metrics: loops and stages held now. */
  sizes(): Record<string, number> {
    return { loops: this.#slots.size, running_stages: this.#runningIds.size };
  }

  /** Stages running right now. */
  get running(): number {
    return this.#running;
  }

  /** Stops asking for work and ends the running stages (see StopOptions); resolves when all is over. */
  async stop(options: StopOptions): Promise<void> {
    this.#polling.abort();
    // Every loop there is: none is added once polling stopped.
    const all = Promise.all([...this.#slots]);
    if (await finishedWithin(all, options.grace)) return;
    this.#options.logger.warn(`stages still running after ${options.grace} ms: cancelling them`);
    this.#cancel.abort(new Error('the runner is stopping'));
    if (await finishedWithin(all, options.report)) return;
    this.#options.logger.warn('stages could not report their end in time: giving up on them');
    this.#abandon.abort();
    await all;
  }

  /** Cancels the running stages at once (a second Ctrl-C); `stop` still waits for their reports. */
  cancelRunning(): void {
    this.#polling.abort();
    this.#cancel.abort(new Error('the runner is stopping'));
  }

  async #loop(slot: number): Promise<void> {
    const { client, filter, logger } = this.#options;
    const backoff = new Backoff(this.#options.backoff ?? DEFAULT_BACKOFF);
    const signal = this.#polling.signal;
    while (!signal.aborted) {
      let stage: WireStage | undefined;
      this.#idle++;
      try {
        stage = await client.request(filter, signal);
        backoff.reset();
      } catch (error) {
        this.#idle--;
        if (signal.aborted) break;
        const delay = backoff.next();
        logger.warn({ err: error, slot, retryInMs: delay }, 'cannot get work from the server; trying again');
        await sleep(delay, signal);
        continue;
      }
      this.#idle--;
      if (stage === undefined || signal.aborted) continue;
      if (this.#runningIds.has(stage.id)) {
        // Two runs of one stage would write the same steps' logs twice, with different batches.
        logger.warn(
          { stage: stage.id },
          'the server offered a stage this runner is running; not running it twice',
        );
        continue;
      }
      // Without a limit, someone must go on waiting for work while this loop runs the stage.
      if (this.#unlimited && this.#idle === 0) this.#spawn();
      this.#running++;
      this.#runningIds.add(stage.id);
      try {
        await this.#options.run(stage, { cancel: this.#cancel.signal, abandon: this.#abandon.signal });
      } catch (error) {
        logger.error({ err: error, stage: stage.id }, 'running the stage failed');
      } finally {
        this.#running--;
        this.#runningIds.delete(stage.id);
      }
      // Without a limit, a loop whose stage ended goes when another one is already waiting.
      if (this.#unlimited && this.#idle > 0) return;
    }
  }
}

/** True when `work` settled within `ms`. */
async function finishedWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
