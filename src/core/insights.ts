/**
 * Build insights (issue 36, docs/insights.md): daily rollups per repository, kept as builds finish,
 * so that any question over 7, 30 or 90 days reads a few hundred rows at most, whatever the number
 * of builds and test results behind them. A day is a UTC day, numbered from the epoch.
 */

/** Milliseconds in a rollup's day. */
export const DAY_MS = 86_400_000;

/** The UTC day of an epoch-millisecond time. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** Histogram buckets grow by this factor: any percentile read from them is within 12% of the truth. */
const BUCKET_GROWTH = 1.25;
/** Bucket 0 holds everything under a second; the last, everything from about 6 days on. */
export const BUCKETS = 64;

/** The histogram bucket of a duration: log-scaled from one second. */
export function bucketOf(ms: number): number {
  if (!(ms >= 1000)) return 0;
  return Math.min(BUCKETS - 1, 1 + Math.floor(Math.log(ms / 1000) / Math.log(BUCKET_GROWTH)));
}

/** The end of bucket `bucket` (durations in it are shorter); the last bucket has none. */
export function bucketEndMs(bucket: number): number {
  return bucket >= BUCKETS - 1 ? Infinity : 1000 * BUCKET_GROWTH ** Math.max(0, bucket);
}

/** A duration that stands for bucket `bucket`: the geometric middle of its bounds. */
export function bucketValue(bucket: number): number {
  if (bucket <= 0) return 500;
  return Math.round(1000 * BUCKET_GROWTH ** (bucket - 0.5));
}

/** The `q` quantile (0..1) of a histogram (bucket → count); 0 when it is empty. */
export function quantile(histogram: ReadonlyMap<number, number>, q: number): number {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return 0;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket) ?? 0;
    if (seen >= rank) return bucketValue(bucket);
  }
  return 0;
}

/** What one finished build adds to its repository's day. */
export interface BuildFacts {
  repoId: number;
  day: number;
  succeeded: boolean;
  /** From its start to its end (0 when it never started). */
  durationMs: number;
  /** From its creation to its start: time spent waiting for a runner. */
  queueMs: number;
  /** Its steps that ran: name, time and whether it failed. */
  steps: { name: string; durationMs: number; failed: boolean }[];
  /** Its stages that ran, by pipeline type (the runner kind): time from start to stop. */
  stages: { kind: string; busyMs: number }[];
  /** Its tests that failed (case ids) and those found flaky in it. */
  failedTests: number[];
  flakyTests: number[];
}

/** A repository's day, as the build charts read it. */
export interface BuildDay {
  day: number;
  builds: number;
  successes: number;
  durationSumMs: number;
  queueSumMs: number;
  /** Log-scaled histogram buckets (insights/histogram.ts) → builds. */
  durations: Map<number, number>;
  queues: Map<number, number>;
}

export interface StepDay {
  day: number;
  name: string;
  runs: number;
  failures: number;
  durationSumMs: number;
}

export interface TestTotal {
  caseId: number;
  failures: number;
  flaky: number;
}

export interface RunnerDay {
  day: number;
  kind: string;
  stages: number;
  busyMs: number;
}

export interface CacheDay {
  day: number;
  hits: number;
  misses: number;
}

/**
 * Every repository's rollups added up over all days: what the Prometheus counters and histograms
 * of GET /metrics show (docs/insights.md). Sums only grow as builds finish.
 */
export interface InsightTotals extends Omit<BuildDay, 'day'> {
  runners: Omit<RunnerDay, 'day'>[];
  cache: { hits: number; misses: number };
  /** Failed test results, and tests found flaky in a build (once per build). */
  tests: { failures: number; flaky: number };
}

/**
 * Persistence of the rollups. `record` adds one finished build's facts once: a second call for the
 * same build id changes nothing (answers false), so that a repeated or replayed update is harmless.
 * Readers take the repositories (one, or an organisation's) and the days `from`..`to` inclusive.
 */
export interface InsightStore {
  record(buildId: number, facts: BuildFacts): Promise<boolean>;
  countCache(repoId: number, day: number, hit: boolean): Promise<void>;
  buildDays(repoIds: readonly number[], from: number, to: number): Promise<BuildDay[]>;
  stepDays(repoIds: readonly number[], from: number, to: number): Promise<StepDay[]>;
  /** The tests that failed most (then the flakiest), at most `limit`. */
  testTotals(repoIds: readonly number[], from: number, to: number, limit: number): Promise<TestTotal[]>;
  runnerDays(repoIds: readonly number[], from: number, to: number): Promise<RunnerDay[]>;
  cacheDays(repoIds: readonly number[], from: number, to: number): Promise<CacheDay[]>;
  /** All repositories and days added up. */
  totals(): Promise<InsightTotals>;
  /**
   * Builds done (last changed before `before`) and not counted yet, after `afterId` in id order, at
   * most `limit`: what the backfill counts.
   */
  uncounted(afterId: number, before: number, limit: number): Promise<number[]>;
}
