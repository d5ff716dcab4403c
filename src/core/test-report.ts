/**
 * Test reports (svc addition, docs/test-reports.md): the tests a step's report files named, kept per
 * build, stage and step, and each test's history across builds. A test is a *case* of its
 * repository, named by suite and name; each run of it is a *result*.
 */
export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** A failed or errored test: its step failed because of it. */
export function isTestFailure(status: TestStatus): boolean {
  return status === 'failed' || status === 'error';
}

export interface TestCase {
  readonly id: number;
  repoId: number;
  suite: string;
  name: string;
  /** Its failures are shown and counted but do not fail its step. */
  quarantined: boolean;
  /** Epoch milliseconds when it last both failed and passed on one commit (flaky); 0: never. */
  flakySeen: number;
  created: number;
}

/** One run of a test case in a step of a build. */
export interface TestResult {
  readonly id: number;
  caseId: number;
  repoId: number;
  buildId: number;
  stageId: number;
  stepId: number;
  /** The step's attempt (`retry:`), from 1. */
  attempt: number;
  status: TestStatus;
  durationMs: number;
  /** Why it failed or was skipped ('' when the report said nothing). */
  message: string;
  /** Its output and stack trace, capped ('' when none). */
  output: string;
  /** The source file the report named ('' when none). */
  file: string;
  /** A failure of a test that passed on the branch's previous build. */
  isNew: boolean;
  /** Its case was quarantined when it ran. */
  quarantined: boolean;
  /** A later attempt of its step ran it again: the build's answer is that attempt's. */
  superseded: boolean;
  /** The commit the build ran. */
  commit: string;
  created: number;
}

export type NewTestResult = Omit<TestResult, 'id' | 'superseded'>;

/** A result with its case's names, as a build's list shows it. */
export interface TestResultOfCase extends TestResult {
  suite: string;
  name: string;
  flakySeen: number;
  /** Whether its case is quarantined now (`quarantined` says whether it was when it ran). */
  caseQuarantined: boolean;
}

/** A result in a case's history, with the build it belongs to. */
export interface TestHistoryEntry extends TestResult {
  buildNumber: number;
}

/** A build's results counted by status (superseded attempts left out). */
export type TestCounts = Record<TestStatus, number> & { quarantined: number; new: number };

/** Who quarantined a test or lifted it, when, and why. */
export interface QuarantineChange {
  readonly id: number;
  caseId: number;
  repoId: number;
  quarantined: boolean;
  userId: number;
  login: string;
  comment: string;
  created: number;
}

/** A repository's choices about its tests. */
export interface TestSettings {
  /** Quarantine is opt-in: until a repository turns it on, no test's failure is forgiven. */
  quarantine: boolean;
  /** Who changed them last, and when (epoch milliseconds); '' and 0 when never. */
  login: string;
  updated: number;
}

/** A result seen on a commit: which build and attempt, and how it ended. */
export interface CommitEvidence {
  caseId: number;
  buildId: number;
  buildNumber: number;
  stepId: number;
  attempt: number;
  status: TestStatus;
  created: number;
}

/**
 * Persistence of test reports. Lists of ids may hold thousands; an implementation reads them in
 * groups. Results go with their build (a purged build takes them); cases with their repository.
 * - `cases` answers the cases of `repoId` with these names, creating those not there yet (several
 *   servers at once create one), keyed by `testKey`.
 * - `replaceResults` stores the results of one attempt of a step, replacing those it stored before
 *   (a report uploaded again), and marks the step's earlier attempts superseded.
 * - `onCommit` answers what the cases' results on `commit` since `since` were, for the flaky rule.
 * - `inBuild` answers each case's result in a build (the last attempt's).
 */
export interface TestReportStore {
  cases(repoId: number, names: readonly { suite: string; name: string }[]): Promise<Map<string, TestCase>>;
  findCase(id: number): Promise<TestCase | undefined>;
  replaceResults(stepId: number, attempt: number, results: readonly NewTestResult[]): Promise<void>;
  listBuild(buildId: number): Promise<TestResultOfCase[]>;
  counts(buildId: number): Promise<TestCounts>;
  history(caseId: number, limit: number): Promise<TestHistoryEntry[]>;
  onCommit(
    repoId: number,
    commit: string,
    caseIds: readonly number[],
    since: number,
  ): Promise<CommitEvidence[]>;
  inBuild(buildId: number, caseIds: readonly number[]): Promise<Map<number, TestStatus>>;
  markFlaky(caseIds: readonly number[], at: number): Promise<void>;
  /** The repository's cases flaky since `since`, most recently seen first, at most `limit`. */
  flaky(repoId: number, since: number, limit: number): Promise<TestCase[]>;
  /** Sets a case's quarantine and records who did it; false (nothing recorded) when it already was so. */
  setQuarantine(change: Omit<QuarantineChange, 'id' | 'repoId'>): Promise<boolean>;
  quarantineLog(caseId: number): Promise<QuarantineChange[]>;
  quarantined(repoId: number): Promise<TestCase[]>;
  /**
   * A build's tests (the last attempt of each step's) that failed, or were found flaky since
   * `flakySince`: what its insight rollup counts.
   */
  notable(
    buildId: number,
    flakySince: number,
  ): Promise<{ caseId: number; failed: boolean; flaky: boolean }[]>;
  /** The repository's settings; the defaults (quarantine off) when it never changed them. */
  settings(repoId: number): Promise<TestSettings>;
  setSettings(repoId: number, settings: TestSettings): Promise<void>;
}

/** How a case is found among its repository's: its suite and name, exactly (a NUL cannot be in either). */
export function testKey(suite: string, name: string): string {
  return `${suite}\u0000${name}`;
}
