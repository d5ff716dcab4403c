import type { Build } from './build.js';
import type { Stage } from './stage.js';
import type { NewStep, Step } from './step.js';

/** A finished build of another CI server, as it was there: its number and times are kept. */
export type RestoredBuild = Omit<Build, 'id' | 'version'>;

/** One of its stages, with its steps. */
export interface RestoredStage {
  stage: Omit<Stage, 'id' | 'repoId' | 'buildId' | 'version'>;
  steps: Omit<NewStep, 'stageId'>[];
}

/**
 * Builds brought across from another server (`svc migrate drone --history`).
 * - `restore` inserts a finished build with its stages and steps in one transaction, keeping its
 *   number, statuses and times. It leaves the repository's counter alone (RepoStore.setCounter
 *   moves it), and makes the build the head of its branch, pull request or deployment list only
 *   when no build of the repository has a higher number. It throws InvalidInputError for a build,
 *   stage or step that is not done (a restored build must never be queued), ConflictError when the
 *   repository already has a build of that number, NotFoundError when the repository is gone.
 *   Returns the build and, in the order given, each stage's steps with their ids.
 */
export interface BuildHistoryStore {
  restore(build: RestoredBuild, stages: readonly RestoredStage[]): Promise<{ build: Build; steps: Step[][] }>;
}
