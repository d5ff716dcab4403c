import type { BuildEvent } from './build.js';
import type { Stage } from './stage.js';

/** A stage waiting for a runner, with the facts runner filters are matched against. */
export interface QueuedStage {
  stage: Stage;
  repo: { slug: string; trusted: boolean };
  build: { event: BuildEvent };
  /**
   * Stages of the same repository and pipeline name that runners have taken and not finished,
   * for the pipeline's concurrency `limit`.
   */
  active: number;
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
 * - `beat` records a sign of life of the runner of a taken stage (pending with a machine, or
 *   running) WITHOUT changing the stage's version, so that heartbeats never make the runner's own
 *   optimistic-locked updates stale. Returns false when the stage is not taken (or gone).
 * - `listStale(before)` returns the taken stages whose last heartbeat is older than `before`.
 */
export interface QueueStore {
  listQueued(): Promise<QueuedStage[]>;
  take(stageId: number, machine: string, at: number): Promise<Stage | undefined>;
  beat(stageId: number, at: number): Promise<boolean>;
  listStale(before: number): Promise<Stage[]>;
}
