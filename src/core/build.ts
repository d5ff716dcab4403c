import type { LatestKind } from './latest.js';
import type { NewStage, Stage } from './stage.js';
import type { NewStep } from './step.js';
import type { Status } from './status.js';

/** What caused a build. */
export const BUILD_EVENTS = ['push', 'pull_request', 'tag', 'promote', 'rollback', 'cron', 'custom'] as const;
export type BuildEvent = (typeof BUILD_EVENTS)[number];

/** One run of a repository's pipelines for one commit. */
export interface Build {
  readonly id: number;
  repoId: number;
  /** Per-repository build number, handed out from the repository's counter; unique per repository. */
  number: number;
  /** The build this one restarts or promotes; 0 when none. */
  parent: number;
  status: Status;
  /** Why the build is `error` (e.g. the pipeline file does not lint); empty otherwise. */
  error: string;
  event: BuildEvent;
  /** Sub-kind of the event (e.g. `opened`, `synchronized` for pull requests). */
  action: string;
  /** Who or what triggered it (a login, `@hook`, `@cron`). */
  trigger: string;
  link: string;
  title: string;
  message: string;
  /** Commit before and after the change. */
  before: string;
  after: string;
  ref: string;
  /** Repository the change comes from (`owner/name`); differs from the repository for forks. */
  sourceRepo: string;
  source: string;
  target: string;
  authorLogin: string;
  authorName: string;
  authorEmail: string;
  authorAvatar: string;
  sender: string;
  /** Custom parameters (promotion, API-triggered builds). */
  params: Record<string, string>;
  /** Name of the cron job that created the build; empty otherwise. */
  cron: string;
  /** Deployment target of a promotion; empty otherwise. */
  deployTo: string;
  deployId: number;
  debug: boolean;
  /** The pipeline file the build was made from (after `${…}` substitution); what runners execute. */
  config: string;
  /** What the file's `paths` conditions saw (svc addition); absent when none has any. */
  changedFiles?: BuildChangedFiles | undefined;
  /** Epoch milliseconds; 0 when not yet. */
  started: number;
  finished: number;
  created: number;
  updated: number;
  version: number;
}

/**
 * The changed files a build's `paths` conditions read: the provider's list, or why it is not known
 * (then every such condition held), and the pipelines `trigger: paths` left out.
 */
export interface BuildChangedFiles {
  files?: string[];
  unknown?: string;
  skipped: string[];
}

/** What a list of a repository's recent builds shows of each: enough to chart their durations. */
export type RecentBuild = Pick<Build, 'number' | 'status' | 'started' | 'finished'>;

export type NewBuild = Omit<Build, 'id' | 'number' | 'created' | 'updated' | 'version'>;

/** A stage to create with its build, with the steps known at creation time. */
export interface NewStageWithSteps {
  stage: Omit<NewStage, 'repoId' | 'buildId'>;
  steps: Omit<NewStep, 'stageId'>[];
}

/** Narrows a list of builds: `ref` (e.g. `refs/heads/main`) keeps the builds of that git ref. */
export interface BuildFilter {
  ref?: string;
}

export interface Page {
  /** 1-based page number. */
  page: number;
  perPage: number;
}

/**
 * Persistence of builds.
 * - `create` runs in one transaction: it takes the next number from the repository's counter,
 *   inserts the build, its stages and their steps, and returns them all.
 * - `update` is optimistic-locked: StaleVersionError when `build.version` is not the stored version.
 * - `list` returns a repository's builds, newest first, narrowed by `filter` when given.
 * - `listIncomplete` returns the builds of every repository that are not done, oldest first.
 * - `purge(repoId, before)` deletes the repository's builds numbered below `before` that are done
 *   (with their stages, steps and logs) and returns how many.
 * - `findLatest` returns a repository's newest build of a branch (its `refs/heads/<branch>` ref),
 *   of a ref (a full ref such as `refs/tags/v1` or `refs/pull/7/head`), or of any kind when neither
 *   is given; `branch` wins when both are. Undefined when there is none.
 * - `listLatest(repoId, kind)` returns the newest build of each branch, pull request or deployment
 *   target (latestKeyOf decides which list a build heads when it is created), newest first;
 *   `deleteLatest` takes one name off such a list and keeps its builds.
 * - `newestOf(repoIds)` returns the newest build (highest number) of each of the repositories that
 *   has one, keyed by repository id: a list of a thousand repositories with their newest builds
 *   costs a few statements, not a thousand.
 * - `recentOf(repoIds, count)` returns the last `count` builds (highest numbers) of each of the
 *   repositories that has any, newest first, keyed by repository id: one statement per 500
 *   repositories, however many builds each has.
 * - `listRecent` returns the newest builds (at most `limit`) of the repositories the user has any
 *   permission on, newest first: the user's recent activity.
 */
export interface BuildStore {
  find(id: number): Promise<Build | undefined>;
  findNumber(repoId: number, number: number): Promise<Build | undefined>;
  list(repoId: number, page: Page, filter?: BuildFilter): Promise<Build[]>;
  newestOf(repoIds: readonly number[]): Promise<Map<number, Build>>;
  recentOf(repoIds: readonly number[], count: number): Promise<Map<number, RecentBuild[]>>;
  listIncomplete(): Promise<Build[]>;
  findLatest(repoId: number, which: { branch?: string; ref?: string }): Promise<Build | undefined>;
  listRecent(userId: number, limit: number): Promise<Build[]>;
  listLatest(repoId: number, kind: LatestKind): Promise<Build[]>;
  deleteLatest(repoId: number, kind: LatestKind, name: string): Promise<void>;
  count(): Promise<number>;
  create(build: NewBuild, stages: NewStageWithSteps[]): Promise<{ build: Build; stages: Stage[] }>;
  update(build: Build): Promise<Build>;
  delete(id: number): Promise<void>;
  purge(repoId: number, before: number): Promise<{ builds: number; steps: number[] }>;
}
