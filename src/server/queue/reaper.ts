import type { Logger } from 'pino';
import { formatDuration } from '../../config/values/duration.js';
import type { BuildStore } from '../../core/build.js';
import type { StageStore } from '../../core/stage.js';
import { isDone } from '../../core/status.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { StageScheduler } from './scheduler.js';

/** When the reaper gives up on builds (SVC_CLEANUP_*). */
export interface ReaperSettings {
  /** How often it looks (SVC_CLEANUP_INTERVAL). */
  interval: number;
  /** A build still pending after this long is ended (SVC_CLEANUP_DEADLINE_PENDING). */
  pendingDeadline: number;
  /** A build still running after this long is ended (SVC_CLEANUP_DEADLINE_RUNNING). */
  runningDeadline: number;
}

export interface ReaperOptions extends ReaperSettings {
  store: { builds: Pick<BuildStore, 'listIncomplete'>; stages: Pick<StageStore, 'list'> };
  scheduler: Pick<StageScheduler, 'fail'>;
  logger: Logger;
  /** Looks only while this server holds the jobs' lease (several servers on one database). */
  leader?: Leadership;
  now?: () => number;
}

/**
 * Ends zombie builds: pending for longer than the pending deadline (no runner ever took them) or
 * running for longer than the running deadline (counted from their start). Each stage not done is
 * failed as `error` with a message that names the setting, so the build ends `error` and its
 * runners, watching it, stop. With several servers on one database only the holder of the jobs'
 * lease looks (`leader`); ending a stage is an optimistic-locked write anyway.
 */
export class Reaper {
  readonly #options: ReaperOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<unknown> = Promise.resolve();

  constructor(options: ReaperOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Looks every `interval` until `stop`. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      if (this.#options.leader?.held === false) return;
      this.#sweeping = this.#sweeping
        .then(() => this.sweep())
        .catch((error: unknown) =>
          this.#options.logger.error({ err: error }, 'reaper: checking builds failed'),
        );
    }, this.#options.interval);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** Ends the builds past their deadline now; returns how many. */
  async sweep(): Promise<number> {
    const now = this.#now();
    const { pendingDeadline, runningDeadline } = this.#options;
    let reaped = 0;
    for (const build of await this.#options.store.builds.listIncomplete()) {
      const pending = build.status === 'pending' && now - build.created > pendingDeadline;
      const running = build.status === 'running' && now - (build.started || build.created) > runningDeadline;
      if (!pending && !running) continue;
      const message = pending
        ? `the reaper ended it: pending for more than ${formatDuration(pendingDeadline)} (SVC_CLEANUP_DEADLINE_PENDING)`
        : `the reaper ended it: running for more than ${formatDuration(runningDeadline)} (SVC_CLEANUP_DEADLINE_RUNNING)`;
      let ended = false;
      for (const stage of await this.#options.store.stages.list(build.id)) {
        if (isDone(stage.status)) continue;
        if (await this.#options.scheduler.fail(stage.id, message, { untaken: true })) ended = true;
      }
      if (ended) {
        reaped++;
        this.#options.logger.warn({ build: build.id, repo: build.repoId }, message);
      }
    }
    return reaped;
  }
}
