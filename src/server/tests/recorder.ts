import { buffer } from 'node:stream/consumers';
import type { Artifact } from '../../core/artifact.js';
import type { Store } from '../../core/store.js';
import {
  isTestFailure,
  testKey,
  type NewTestResult,
  type TestCase,
  type TestStatus,
} from '../../core/test-report.js';
import { byteLimited } from '../../platform/byte-limit.js';
import {
  MAX_REPORT_BYTES,
  MAX_TESTS_PER_REPORT,
  parseReport,
  type ReportFormat,
} from '../../reports/index.js';
import type { TestCaseResult } from '../../reports/types.js';
import type { ArtifactService, ArtifactSource } from '../artifacts/service.js';
import { alternating } from './alternation.js';
import { earlierOnRef } from './earlier-builds.js';

/** A test that both failed and passed on one commit within this long is flaky. */
export const FLAKY_WINDOW_MS = 14 * 86_400_000;
/** Tests one upload records at most, whatever the number of its report files. */
const MAX_TESTS_PER_UPLOAD = MAX_TESTS_PER_REPORT;
const MiB = 1024 * 1024;

/** What the reports of one upload held, for the step's log and its outcome. */
export interface TestSummary {
  reports: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Failures of quarantined tests (counted in `failed` too). */
  quarantined: number;
  /** Failures of tests that passed on the branch's previous build. */
  new: number;
  /** Tests seen both failing and passing on this commit. */
  flaky: number;
  /** Report files that could not be read, or were read in part, and why. */
  problems: string[];
}

export interface TestRecorderDeps {
  store: Pick<Store, 'testReports' | 'builds'>;
  artifacts: Pick<ArtifactService, 'entries' | 'open'>;
  now?: () => number;
}

/**
 * Reads the test reports of an uploaded artifact (its `junit` paths: JUnit XML, `go test -json` or
 * TAP, told apart by content) and records their results (docs/test-reports.md): each test's case,
 * whether its failure is new (it passed on the branch's previous build), whether it is flaky (it
 * also passed, or failed, on the same commit within 14 days; or its recent results flip between
 * passing and failing: alternation.ts), and whether it was quarantined. A file
 * too large, malformed or hostile is a problem in the summary, never an error: the step goes on.
 */
export class TestRecorder {
  readonly #now: () => number;

  constructor(private readonly deps: TestRecorderDeps) {
    this.#now = deps.now ?? Date.now;
  }

  async record(source: ArtifactSource, attempt: number, artifact: Artifact): Promise<TestSummary> {
    const summary: TestSummary = {
      reports: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
      quarantined: 0,
      new: 0,
      flaky: 0,
      problems: [],
    };
    if (artifact.junit.length === 0) return summary;
    const tests = await this.#read(artifact, summary);
    const build = await this.deps.store.builds.find(source.buildId);
    if (build === undefined) return summary;
    const cases = await this.deps.store.testReports.cases(source.repoId, tests);
    const caseOf = (test: TestCaseResult): TestCase | undefined => cases.get(testKey(test.suite, test.name));
    const caseIds = [...new Set([...cases.values()].map((c) => c.id))];
    const now = this.#now();
    // Quarantine is opt-in: a repository that did not turn it on forgives no failure.
    const forgiving = (await this.deps.store.testReports.settings(source.repoId)).quarantine;
    const before = await this.#previousStatuses(build, caseIds);
    const flaky = await this.#flaky(source, attempt, build.after, tests, caseOf, now);
    const results: NewTestResult[] = [];
    for (const test of tests) {
      const testCase = caseOf(test);
      if (testCase === undefined) continue;
      const failed = isTestFailure(test.status);
      const isNew = failed && before.get(testCase.id) === 'passed';
      results.push({
        caseId: testCase.id,
        repoId: source.repoId,
        buildId: source.buildId,
        stageId: source.stageId,
        stepId: source.stepId,
        attempt,
        status: test.status,
        durationMs: Math.max(0, Math.round(test.durationMs)),
        message: test.message ?? '',
        output: test.output ?? '',
        file: test.file ?? '',
        isNew,
        quarantined: forgiving && testCase.quarantined,
        commit: build.after,
        created: now,
      });
      if (failed) summary.failed++;
      else if (test.status === 'passed') summary.passed++;
      else summary.skipped++;
      if (failed && forgiving && testCase.quarantined) summary.quarantined++;
      if (isNew) summary.new++;
    }
    const failing = results.filter((r) => isTestFailure(r.status) && !flaky.includes(r.caseId));
    // Read before this upload's results are stored: the history is the earlier builds'.
    flaky.push(
      ...(await alternating(this.deps.store.testReports, [...new Set(failing.map((r) => r.caseId))])),
    );
    summary.flaky = flaky.length;
    await this.deps.store.testReports.replaceResults(source.stepId, attempt, results);
    if (flaky.length > 0) await this.deps.store.testReports.markFlaky(flaky, now);
    return summary;
  }

  /** Every test of the artifact's reports, in file order, up to MAX_TESTS_PER_UPLOAD. */
  async #read(artifact: Artifact, summary: TestSummary): Promise<TestCaseResult[]> {
    const tests: TestCaseResult[] = [];
    const entries = new Map((await this.deps.artifacts.entries(artifact)).map((e) => [e.name, e]));
    for (const path of artifact.junit) {
      const entry = entries.get(path);
      if (entry === undefined) continue;
      summary.reports++;
      if (entry.size > MAX_REPORT_BYTES) {
        summary.problems.push(
          `${path}: ${(entry.size / MiB).toFixed(1)} MiB is more than a report may have (${MAX_REPORT_BYTES / MiB} MiB): not read`,
        );
        continue;
      }
      let bytes: Buffer;
      try {
        const { body } = await this.deps.artifacts.open(artifact, path);
        bytes = await buffer(byteLimited(body, MAX_REPORT_BYTES, `${path}: larger than its zip entry says`));
      } catch (error) {
        summary.problems.push(
          `${path}: could not be read: ${error instanceof Error ? error.message : String(error)}`,
        );
        continue;
      }
      const parsed = parseReport(bytes, formatHint(path));
      if ('error' in parsed) {
        summary.problems.push(`${path}: ${parsed.error}`);
        continue;
      }
      for (const problem of parsed.problems) summary.problems.push(`${path}: ${problem}`);
      const room = MAX_TESTS_PER_UPLOAD - tests.length;
      if (parsed.tests.length > room)
        summary.problems.push(
          `${path}: only ${room} of its ${parsed.tests.length} tests kept (${MAX_TESTS_PER_UPLOAD} per upload)`,
        );
      for (const test of parsed.tests.slice(0, room)) tests.push(withoutNul(test));
    }
    return tests;
  }

  /** How the cases ended on the branch's previous build that ran them. */
  async #previousStatuses(
    build: { id: number; repoId: number; number: number; ref: string },
    caseIds: readonly number[],
  ): Promise<Map<number, TestStatus>> {
    if (caseIds.length === 0) return new Map();
    for (const previous of await earlierOnRef(this.deps.store.builds, build)) {
      const statuses = await this.deps.store.testReports.inBuild(previous.id, caseIds);
      if (statuses.size > 0) return statuses;
    }
    return new Map();
  }

  /** The cases that, with this upload, both failed and passed on `commit` within FLAKY_WINDOW_MS. */
  async #flaky(
    source: ArtifactSource,
    attempt: number,
    commit: string,
    tests: readonly TestCaseResult[],
    caseOf: (test: TestCaseResult) => TestCase | undefined,
    now: number,
  ): Promise<number[]> {
    const seen = new Map<number, Set<'failed' | 'passed'>>();
    const note = (caseId: number, status: TestStatus): void => {
      if (status === 'skipped') return;
      const statuses = seen.get(caseId) ?? new Set();
      statuses.add(isTestFailure(status) ? 'failed' : 'passed');
      seen.set(caseId, statuses);
    };
    for (const test of tests) {
      const testCase = caseOf(test);
      if (testCase !== undefined) note(testCase.id, test.status);
    }
    if (commit === '' || seen.size === 0) return [];
    const evidence = await this.deps.store.testReports.onCommit(
      source.repoId,
      commit,
      [...seen.keys()],
      now - FLAKY_WINDOW_MS,
    );
    // The results this upload replaces are not evidence.
    for (const earlier of evidence)
      if (!(earlier.stepId === source.stepId && earlier.attempt === attempt))
        note(earlier.caseId, earlier.status);
    return [...seen].filter(([, statuses]) => statuses.size === 2).map(([caseId]) => caseId);
  }
}

/** The format a report's name promises; detection decides for others. */
function formatHint(path: string): ReportFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.xml')) return 'junit';
  if (lower.endsWith('.tap')) return 'tap';
  return undefined;
}

/**
 * A report's NULs become U+FFFD: a NUL separates suite and name in a case's key, and PostgreSQL
 * cannot store one in text.
 */
function withoutNul(test: TestCaseResult): TestCaseResult {
  const clean = (text: string | undefined) => text?.replaceAll('\u0000', '\uFFFD');
  const fields = [test.suite, test.name, test.message, test.output, test.file];
  if (!fields.some((field) => field?.includes('\u0000') === true)) return test;
  return {
    ...test,
    suite: clean(test.suite) ?? '',
    name: clean(test.name) ?? '',
    ...(test.message === undefined ? {} : { message: clean(test.message) }),
    ...(test.output === undefined ? {} : { output: clean(test.output) }),
    ...(test.file === undefined ? {} : { file: clean(test.file) }),
  };
}
