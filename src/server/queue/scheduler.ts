import type { Logger } from 'pino';
import { ConflictError, InvalidInputError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import type { BuildListener } from '../../core/events.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Stage, StageWithSteps } from '../../core/stage.js';
import { isDone, type Status } from '../../core/status.js';
import type { Step } from '../../core/step.js';
import type { Store } from '../../core/store.js';
import type { BuildWatches } from './build-watches.js';
import { closeSteps, ENDED, finishSteps, stageEnd, type FinishDeps } from './finish.js';
import {
  clip,
  isStageReplay,
  isStepReplay,
  newStep,
  stepOutcome,
  type StageReport,
  type StepReport,
} from './reports.js';
import { CoalescingLock } from './coalescing-lock.js';
import { checkHolder } from './holder-check.js';
import { RecentRepos } from './recent-repos.js';
import { settleBuild, type SettleDeps } from './settle.js';
import type { StageQueue } from './stage-queue.js';

/** How a step still running ends with its stage: killed with a killed stage, else error. */
function endOfRunning(stage: Stage): Status {
  return stage.status === 'killed' ? 'killed' : 'error';
}

/** Everything the scheduler reads, writes and tells. */
export interface SchedulerDeps {
  store: Pick<Store, 'repos' | 'builds' | 'stages' | 'steps' | 'queue' | 'logs' | 'logBatches'>;
  listener: BuildListener;
  queue: StageQueue;
  watches: BuildWatches;
  liveLogs: LiveLogs;
  logger: Logger;
  now?: () => number;
}

/**
 * The life of a stage on the server, from a runner taking it to its end, and what that does to its
 * build. Every write is optimistic-locked: a runner's report carries the version it last saw, and
 * a stale one is refused (StaleVersionError, 409) — except an exact repeat of the update that made
 * the stored version, which a runner sends when it retries a request whose answer it lost: that is
 * answered with what is stored, and the build settled and its listener told again. Every stage
 * status change settles the build (settle.ts), which tells the listener.
 */
export class StageScheduler {
  readonly #deps: SchedulerDeps;
  readonly #settle: SettleDeps;
  readonly #now: () => number;

  constructor(deps: SchedulerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    const { repos, builds, stages } = deps.store;
    this.#settle = {
      ...deps,
      store: { repos: new RecentRepos(repos, { now: this.#now }), builds, stages },
      now: this.#now,
      settling: new CoalescingLock(),
    };
  }

  /**
   * A runner takes a queued stage: the first one wins (a conditional write, or for a stage with a
   * concurrency limit a transaction that counts and takes), the others get a ConflictError. Accepting again by the
   * same runner is answered with the stage.
   */
  async accept(stageId: number, machine: string): Promise<StageWithSteps> {
    if (machine === '') throw new InvalidInputError('accepting a stage needs the runner name (?machine=)');
    // The common case in one statement: a queued stage without a limit. A taken stage has no steps yet.
    const queued = await this.#deps.store.queue.take(stageId, machine, this.#now());
    if (queued !== undefined) {
      this.#deps.queue.taken(stageId);
      return { ...queued, steps: [] };
    }
    // Not taken that way: read it to know why (gone, taken, already this runner's, or limited).
    const stage = await this.#find(stageId);
    if (stage.machine === machine && (stage.status === 'pending' || stage.status === 'running')) {
      return this.#withSteps(stage);
    }
    if (stage.status !== 'pending' || stage.machine !== '') {
      throw new ConflictError(
        stage.machine === ''
          ? `stage ${stageId} is ${stage.status}, not queued`
          : `stage ${stageId} was taken by runner "${stage.machine}"`,
      );
    }
    if (stage.limit === 0) {
      // Queued without a limit, yet not taken above: it changed in between; the optimistic lock decides.
      const taken = await this.#deps.store.stages.update({ ...stage, machine, heartbeat: this.#now() });
      this.#deps.queue.taken(stageId);
      return { ...taken, steps: [] };
    }
    // The pipeline's concurrency limit, counted and taken in one transaction that holds the
    // repository's row: servers sharing the database cannot both pass the count.
    const result = await this.#deps.store.queue.takeLimited(stageId, machine, this.#now());
    if (result === undefined) throw new ConflictError(`stage ${stageId} was taken by another runner`);
    if ('active' in result) {
      throw new ConflictError(
        `pipeline "${stage.name}" already runs ${result.active} time(s), its concurrency limit is ${stage.limit}`,
      );
    }
    this.#deps.queue.taken(stageId);
    return { ...result.stage, steps: [] };
  }

  /**
   * A runner reports its stage: `running` (with the steps it will run, which are created then, as
   * Drone's runners do) or a final status (with the steps' final state). With `holder` (the runner
   * names itself: svc's runners), a ConflictError unless that runner holds the stage, checked on
   * the reads and writes the report makes anyway.
   */
  async report(report: StageReport, holder?: string): Promise<StageWithSteps> {
    // A final report first tries its write without reading the stage (the common case, one statement).
    if (isDone(report.status)) {
      const ended = await this.#deps.store.stages.end(
        report.id,
        report.version,
        stageEnd(report, this.#now()),
        holder,
      );
      if (ended !== undefined) return this.#ended(ended, report);
    }
    const stored = await this.#find(report.id);
    checkHolder(holder, stored);
    if (isStageReplay(stored, report)) {
      // Finish what the first request may not have (the server stopped half-way): all idempotent.
      if (isDone(stored.status)) await closeSteps(this.#finish(), stored.id, endOfRunning(stored), ENDED);
      // The listener is told again: the first request may have died after the build's status was
      // written and before the listener heard of it (a server killed while posting the commit
      // status), and nothing else would ever tell it — the build is already in its new state. The
      // listeners take a repeat: commit statuses post only a changed state.
      await settleBuild(this.#settle, stored.buildId, { stageChanged: true });
      return this.#withSteps(stored);
    }
    if (stored.version !== report.version) throw new StaleVersionError(`stage ${stored.id}`, report.version);
    if (isDone(stored.status)) throw new ConflictError(`stage ${stored.id} is already ${stored.status}`);
    if (stored.machine === '')
      throw new ConflictError(`stage ${stored.id} must be accepted before it is updated`);
    if (report.status === 'running') return this.#start(stored, report);
    if (isDone(report.status)) {
      // The write above lost to another one that this read now shows fine: written again, or stale.
      const ended = await this.#deps.store.stages.end(
        stored.id,
        report.version,
        stageEnd(report, this.#now()),
        holder,
      );
      if (ended === undefined) throw new StaleVersionError(`stage ${stored.id}`, report.version);
      return this.#ended(ended, report);
    }
    throw new InvalidInputError(
      `a runner cannot set a stage to ${report.status}; expected running or a final status`,
    );
  }

  /**
   * A runner reports one step (started, or finished); with `holder`, a ConflictError unless that
   * runner holds the step's stage (read first then, so that not even a replay answers another runner).
   */
  async updateStep(report: StepReport, holder?: string): Promise<Step> {
    const stored = await this.#deps.store.steps.find(report.id);
    if (stored === undefined) throw new NotFoundError(`step ${report.id}`);
    const held = holder === undefined ? undefined : await this.#find(stored.stageId);
    if (held !== undefined) checkHolder(holder, held);
    if (isStepReplay(stored, report)) return stored;
    if (stored.version !== report.version) throw new StaleVersionError(`step ${stored.id}`, report.version);
    const stage = held ?? (await this.#find(stored.stageId));
    if (isDone(stage.status))
      throw new ConflictError(`stage ${stage.id} of step ${stored.id} is already ${stage.status}`);
    const updated = await this.#deps.store.steps.update({ ...stored, ...stepOutcome(report) });
    await this.#deps.store.queue.beat(stage.id, this.#now());
    return updated;
  }

  /**
   * Gives back a stage `stage.machine` took and never started (its answer lost on the way, its
   * runner gone before starting it): it is queued again, and the runners waiting hear of it. Safe,
   * as nothing of a stage runs before its runner reports it running, which now fails as stale.
   * False when the stage was started, taken by another or changed meanwhile.
   */
  async requeue(stage: Pick<Stage, 'id' | 'machine' | 'version'>): Promise<boolean> {
    const queued = await this.#deps.store.queue.requeue(stage.id, stage.machine, stage.version);
    if (queued === undefined) return false;
    this.#deps.queue.wake();
    return true;
  }

  /**
   * Ends a taken stage as `error` with `message` (the heartbeat watchdog) — with `untaken`, also one
   * no runner took (the reaper); false when it was done or changed meanwhile.
   */
  async fail(stageId: number, message: string, options: { untaken?: boolean } = {}): Promise<boolean> {
    const stage = await this.#deps.store.stages.find(stageId);
    if (stage === undefined || isDone(stage.status)) return false;
    if (stage.machine === '' && options.untaken !== true) return false;
    const now = this.#now();
    try {
      await this.#deps.store.stages.update({
        ...stage,
        status: 'error',
        error: clip(message),
        started: stage.started || now,
        stopped: now,
      });
    } catch (error) {
      if (error instanceof StaleVersionError) return false;
      throw error;
    }
    await closeSteps(this.#finish(), stageId, 'error', message);
    await settleBuild(this.#settle, stage.buildId, { stageChanged: true });
    return true;
  }

  /**
   * Brings every build that is not done in line with its stages: what a server stopped half-way
   * through an update (kill -9) left undone — open steps of ended stages, dependents not queued, a
   * build status not updated — is done now. The listener hears only of builds that changed.
   */
  async recover(): Promise<number> {
    let builds = 0;
    for (const build of await this.#deps.store.builds.listIncomplete()) {
      for (const stage of await this.#deps.store.stages.list(build.id)) {
        if (isDone(stage.status)) await closeSteps(this.#finish(), stage.id, endOfRunning(stage), ENDED);
      }
      await settleBuild(this.#settle, build.id, { stageChanged: false });
      builds++;
    }
    return builds;
  }

  /** A stage just ended by its runner's report: its steps, then its build. */
  async #ended(ended: Stage, report: StageReport): Promise<StageWithSteps> {
    const stage = await finishSteps(this.#finish(), ended, report);
    await settleBuild(this.#settle, stage.buildId, { stageChanged: true });
    return stage;
  }

  async #start(stored: Stage, report: StageReport): Promise<StageWithSteps> {
    const existing = await this.#deps.store.steps.list(stored.id);
    const numbers = new Set(existing.map((s) => s.number));
    // The stage's steps as they will be answered; undefined when they must be read again.
    let steps: Step[] | undefined = existing;
    for (const step of report.steps) {
      if (numbers.has(step.number)) continue;
      try {
        const created = await this.#deps.store.steps.create(newStep(stored.id, step));
        steps?.push(created);
      } catch (error) {
        // The same runner's retried request created it meanwhile.
        if (!(error instanceof ConflictError)) throw error;
        steps = undefined;
      }
    }
    const now = this.#now();
    const stage = await this.#deps.store.stages.update({
      ...stored,
      status: 'running',
      error: '',
      exitCode: 0,
      started: report.started || now,
      stopped: 0,
      heartbeat: now,
    });
    await settleBuild(this.#settle, stage.buildId, { stageChanged: true });
    if (steps === undefined) return this.#withSteps(stage);
    return { ...stage, steps: steps.sort((a, b) => a.number - b.number) };
  }

  #finish(): FinishDeps {
    return { ...this.#deps, now: this.#now };
  }

  async #find(stageId: number): Promise<Stage> {
    const stage = await this.#deps.store.stages.find(stageId);
    if (stage === undefined) throw new NotFoundError(`stage ${stageId}`);
    return stage;
  }

  async #withSteps(stage: Stage): Promise<StageWithSteps> {
    return { ...stage, steps: await this.#deps.store.steps.list(stage.id) };
  }
}
