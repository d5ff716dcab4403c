import type { BuildEvent } from './build.js';
import type { Stage } from './stage.js';

/** A stage waiting for a runner, with the facts runner filters are matched against. */
export interface QueuedStage {
  stage: Stage;
  /** `throttle`: builds of the repository that may run at once (0 = no limit). */
  repo: { slug: string; trusted: boolean; throttle: number };
  build: { event: BuildEvent };
  /**
   * Stages of the same repository and pipeline name that runners have taken and not finished,
   * for the pipeline's concurrency `limit` (counted only for stages with a limit, else 0).
   */
  active: number;
  /**
   * For the repository's `throttle` (counted only when it has one, else 0 and false): its builds
   * of which runners have taken a stage and not finished it, and whether this stage's build is one
   * of them (its further stages do not start another build, so the throttle does not hold them).
   */
  running: { builds: number; thisBuild: boolean };
}

/**
 * The queue's own queries over stages. The queue lives in the database; these read it, hand its
 * stages to runners and keep runners' heartbeats, nothing else.
 * - `listQueued` returns the pending stages no runner has taken (`machine` empty), oldest first.
 * - `take(stageId, machine, at)` gives a queued stage (pending, `machine` empty) WITHOUT a
 *   concurrency limit (`limit` 0) to runner `machine` in one conditional write: `machine` set,
 *   `heartbeat` = `at`, version + 1. Returns the stage as taken; undefined when it is not queued,
 *   is gone, or has a limit (its pipeline's taken stages must be counted first: the caller then
 *   reads the stage and updates it, optimistic-locked). Of concurrent takes of a stage, one wins.
 * - `takeLimited(stageId, machine, at)` takes a queued stage WITH a concurrency limit for runner
 *   `machine` if its pipeline (repository and name) has fewer taken, unfinished stages than the
 *   limit: the count and the write are one transaction that holds the repository's row, so that
 *   servers sharing the database cannot both pass the count (svc's use of `FOR UPDATE`; the stage
 *   itself is read `SKIP LOCKED`, so a take under way elsewhere is not waited for). Returns the
 *   stage as taken, `{ active }` when the limit is reached, undefined when the stage is not queued.
 * - `requeue(stageId, machine, version)` gives back a stage runner `machine` took and never started
 *   (pending, taken by `machine`, stored version `version`) in one conditional write: `machine`
 *   empty, `heartbeat` 0, version + 1, so that it is queued again and a late report of the runner
 *   that took it is stale. Returns the stage as queued again; undefined when the condition does not
 *   hold (started, taken by another, changed meanwhile, gone).
 * - `beat` records a sign of life of the runner of a taken stage (pending with a machine, or
 *   running) WITHOUT changing the stage's version, so that heartbeats never make the runner's own
 *   optimistic-locked updates stale. Returns false when the stage is not taken (or gone).
 * - `beatStages(stageIds, at)` records a sign of life for each of the stages that is taken, in one
 *   write (a runner's heartbeats coalesced), like `beat`; returns how many were taken.
 * - `listStale(before)` returns the taken stages whose last heartbeat is older than `before`.
 * - `listIncomplete` returns the stages that are `pending` (queued or taken) or `running`, oldest
 *   first, with the same facts as `listQueued` (GET /api/queue).
 * - `takenBy` counts, per runner name (`machine`), the stages it has taken and not finished.
 * - `pausedSince` answers when the queue was paused (epoch milliseconds), 0 when it runs;
 *   `setPaused(at)` pauses it (at > 0) or resumes it (0). The switch is in the database: it
 *   survives restarts and holds for every server sharing the database.
 */
export interface QueueStore {
  listQueued(): Promise<QueuedStage[]>;
  take(stageId: number, machine: string, at: number): Promise<Stage | undefined>;
  takeLimited(
    stageId: number,
    machine: string,
    at: number,
  ): Promise<{ stage: Stage } | { active: number } | undefined>;
  requeue(stageId: number, machine: string, version: number): Promise<Stage | undefined>;
  beat(stageId: number, at: number): Promise<boolean>;
  beatStages(stageIds: readonly number[], at: number): Promise<number>;
  listStale(before: number): Promise<Stage[]>;
  listIncomplete(): Promise<QueuedStage[]>;
  takenBy(): Promise<Map<string, number>>;
  pausedSince(): Promise<number>;
  setPaused(at: number): Promise<void>;
}

/**
 * The queue's pause switch as the API drives it (StageQueue implements it): `pause` stops handing
 * out stages on every server of the database (idempotent: the first pause's time is kept),
 * `resume` hands them out again at once, `pausedSince` answers when it was paused (0 = running).
 */
export interface QueueSwitch {
  pause(): Promise<void>;
  resume(): Promise<void>;
  pausedSince(): Promise<number>;
}
