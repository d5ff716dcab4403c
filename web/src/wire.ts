/* The API's JSON, as far as the pages read it (docs/api.md has the whole shapes). */

export interface Build {
  number: number;
  status: string;
  event: string;
  ref: string;
  source: string;
  target: string;
  after: string;
  link: string;
  message: string;
  author_login: string;
  author_avatar: string;
  sender: string;
  deploy_to: string;
  error: string;
  created: number;
  started: number;
  finished: number;
  /** svc's path filters: the changed files, or why they are not known, and what they left out. */
  changed_files?: string[];
  changed_files_unknown?: string;
  paths_skipped?: string[];
  stages?: Stage[];
}

export interface Stage {
  number: number;
  name: string;
  status: string;
  depends_on: string[] | null;
  machine: string;
  error: string;
  started: number;
  stopped: number;
  pending_reason?: { code: string; message: string };
  /** The environment the stage deploys to and its approvals (svc's addition). */
  deployment?: { environment: string; approvals_required: number; approved: boolean; deadline: number };
  steps?: Step[];
}

/** One decision on a stage waiting for approval. */
export interface Approval {
  id: number;
  stage: number;
  login: string;
  decision: 'approve' | 'decline' | 'timeout';
  comment: string;
  created: number;
}

export interface Step {
  number: number;
  name: string;
  status: string;
  exit_code: number;
  error: string;
  started: number;
  stopped: number;
  /** How many times it ran; more than 1 after its `retry:`. */
  attempts?: number;
}

export interface Repo {
  slug: string;
  namespace: string;
  name: string;
  active: boolean;
  visibility: string;
  default_branch: string;
  link: string;
  permissions?: { read: boolean; write: boolean; admin: boolean };
  build?: Build;
  /** The last builds, newest first, with `?recent=N`. */
  recent?: RecentBuild[];
}

/** What `?recent=N` tells of each of a repository's last builds (epoch seconds; 0 when not yet). */
export interface RecentBuild {
  number: number;
  status: string;
  started: number;
  finished: number;
}

export const DONE = new Set(['success', 'failure', 'error', 'killed', 'skipped', 'declined']);

/** A test's run status, as its report gave it. */
export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped';

/** A test of a repository, by suite and name (docs/test-reports.md). */
export interface TestCase {
  id: number;
  suite: string;
  name: string;
  quarantined: boolean;
  flaky: boolean;
  /** When it last failed and passed on one commit (epoch seconds; 0: never). */
  flaky_seen: number;
}

/** One run of a test in a build (GET …/builds/{number}/tests). */
export interface TestResult {
  id: number;
  case: TestCase;
  stage: { number: number; name: string };
  step: { number: number; name: string };
  attempt: number;
  status: TestStatus;
  duration_ms: number;
  message: string;
  output: string;
  file: string;
  new: boolean;
  quarantined: boolean;
}

export interface TestCounts {
  total: number;
  passed: number;
  failed: number;
  skipped: number;
  quarantined: number;
  new: number;
  flaky: number;
}

export interface BuildTests {
  counts: TestCounts;
  matching: number;
  tests: TestResult[];
}

/** One result in a test's history, newest first. */
export interface TestHistory {
  build: number;
  commit: string;
  attempt: number;
  status: TestStatus;
  duration_ms: number;
  new: boolean;
  quarantined: boolean;
  created: number;
}

export interface TestCaseDetail extends TestCase {
  quarantine_log: { quarantined: boolean; login: string; comment: string; created: number }[];
}

export interface FlakyTest extends TestCase {
  evidence: {
    commit: string;
    results: { build: number; attempt: number; status: TestStatus; created: number }[];
  }[];
}

/** A day's build numbers in insights (GET /api/insights/…); `date` is a UTC day, YYYY-MM-DD. */
export interface InsightDay {
  date: string;
  builds: number;
  successes: number;
  success_rate: number;
  duration_p50_ms: number;
  duration_p95_ms: number;
  queue_p50_ms: number;
  queue_p95_ms: number;
}

/** A test in insights' lists of the most failing and the flakiest. */
export interface InsightTest {
  id: number;
  suite: string;
  name: string;
  failures: number;
  flaky: number;
}

/** Build insights of a repository or an organisation over 7, 30 or 90 days (docs/api.md). */
export interface Insights {
  days: 7 | 30 | 90;
  from: string;
  to: string;
  builds: Omit<InsightDay, 'date' | 'builds'> & { total: number };
  daily: InsightDay[];
  slowest_steps: {
    name: string;
    runs: number;
    failures: number;
    mean_ms: number;
    daily: { date: string; runs: number; mean_ms: number }[];
  }[];
  failing_tests: InsightTest[];
  flaky_tests: InsightTest[];
  runners: {
    kind: string;
    stages: number;
    busy_ms: number;
    daily: { date: string; stages: number; busy_ms: number }[];
  }[];
  caches: {
    hits: number;
    misses: number;
    hit_rate: number;
    daily: { date: string; hits: number; misses: number; hit_rate: number }[];
  };
}
