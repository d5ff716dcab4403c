import type { Logger } from 'pino';
import type { Cron, CronStore } from '../../core/cron.js';
import { NotFoundError, StaleVersionError } from '../../core/errors.js';
import type { RepoStore } from '../../core/repo.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import type { CommitBuilds } from '../trigger/index.js';
import { nextRun } from './expr.js';
import { cronBuildOf } from './job.js';

/** What the cron scheduler needs (SVC_CRON_INTERVAL, the stores, the builder of commits). */
export interface CronSchedulerOptions {
  /** How often it looks for due jobs, in milliseconds (SVC_CRON_INTERVAL). */
  interval: number;
  crons: Pick<CronStore, 'listReady' | 'update'>;
  repos: Pick<RepoStore, 'find'>;
  builds: Pick<CommitBuilds, 'build'>;
  logger: Logger;
  /** Looks only while this server holds the jobs' lease (several servers on one database). */
  leader?: Leadership;
  now?: () => number;
}

/**
 * Runs due cron jobs (Drone's cron scheduler): every `interval` it lists the enabled jobs whose next
 * run has come, moves each one's `next` to its first run after now and `prev` to the run it takes,
 * then creates the build. Scheduling is deliberately inexact (a job runs at the first look after its
 * time), and a job missed while no server looked runs once, not once per missed run, because `next`
 * is computed from now. Moving `next` is an optimistic-locked write made BEFORE the build: of several
 * servers on one database, only the one whose write wins builds, so a run is never built twice (and
 * only the holder of the jobs' lease looks at all, `leader`). A build that then fails (provider
 * down) is logged and not retried: the job runs again at its next time.
 */
export class CronScheduler {
  readonly #options: CronSchedulerOptions;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> = Promise.resolve();

  constructor(options: CronSchedulerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Looks every `interval` until `stop`. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      if (this.#options.leader?.held === false) return;
      this.#running = this.#running
        .then(() => this.runDue())
        .catch((error: unknown) =>
          this.#options.logger.error({ err: error }, 'cron: running due jobs failed'),
        );
    }, this.#options.interval);
    this.#timer.unref();
  }

  /** Stops looking and waits for the look under way. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Runs the jobs due now; returns how many builds this server created. */
  async runDue(): Promise<number> {
    const now = this.#now();
    let built = 0;
    for (const job of await this.#options.crons.listReady(now)) {
      if (job.disabled) continue;
      if (!(await this.#claim(job, now))) continue;
      if (await this.#build(job)) built++;
    }
    return built;
  }

  /** Moves the job to its next run; false when another server moved it first (or deleted it). */
  async #claim(job: Cron, now: number): Promise<boolean> {
    let next: number;
    try {
      next = nextRun(job.expr, now);
    } catch (error) {
      // Expressions are checked when written; one that no longer reads (a library upgrade) is
      // parked with no next run rather than failing every look.
      this.#options.logger.warn(
        { err: error, cron: job.id, repoId: job.repoId },
        'cron: unreadable job parked',
      );
      next = 0;
    }
    try {
      await this.#options.crons.update({ ...job, prev: job.next, next });
      return next !== 0;
    } catch (error) {
      if (error instanceof StaleVersionError || error instanceof NotFoundError) return false;
      throw error;
    }
  }

  async #build(job: Cron): Promise<boolean> {
    const { logger } = this.#options;
    // The scheduled time this build is for (the earliest one missed, when no server looked in time):
    // every slot is claimed by one server only, so an operator counts builds per slot by it.
    const log = { cron: job.name, repoId: job.repoId, slot: new Date(job.next).toISOString() };
    const repo = await this.#options.repos.find(job.repoId);
    if (repo === undefined || !repo.active) return false;
    try {
      const { at, what } = cronBuildOf(job);
      const result = await this.#options.builds.build(repo, at, what);
      if (result.kind === 'skipped') {
        logger.info({ ...log, repo: repo.slug, reason: result.reason }, 'cron: no build');
        return false;
      }
      logger.info({ ...log, repo: repo.slug, build: result.build.number }, 'cron: build created');
      return true;
    } catch (error) {
      logger.warn({ ...log, err: error, repo: repo.slug }, 'cron: cannot create the build');
      return false;
    }
  }
}
