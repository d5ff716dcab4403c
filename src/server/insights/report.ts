import { dayOf, DAY_MS, quantile, type InsightStore } from '../../core/insights.js';
import type { TestReportStore } from '../../core/test-report.js';

/** The ranges insights are asked for, in days. */
export const RANGES = [7, 30, 90] as const;
export type Range = (typeof RANGES)[number];

/** Steps and tests each list names at most. */
const TOP = 10;

export interface InsightReportDeps {
  insights: Pick<InsightStore, 'buildDays' | 'stepDays' | 'testTotals' | 'runnerDays' | 'cacheDays'>;
  tests: Pick<TestReportStore, 'findCase'>;
}

const date = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const ratio = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 1000) / 1000);
const mean = (sum: number, n: number) => (n === 0 ? 0 : Math.round(sum / n));

function merged(histograms: readonly ReadonlyMap<number, number>[]): Map<number, number> {
  const all = new Map<number, number>();
  for (const histogram of histograms)
    for (const [bucket, n] of histogram) all.set(bucket, (all.get(bucket) ?? 0) + n);
  return all;
}

/**
 * The insights of some repositories (one, or an organisation's) over the last `days` days to
 * `now`, from the daily rollups alone (docs/insights.md): every day of the range is in `daily`,
 * zeros where nothing ran, so that charts need no gaps filled. Percentiles come from log-scaled
 * histograms: within 12% of the exact value.
 */
export async function insightReport(
  deps: InsightReportDeps,
  repoIds: readonly number[],
  days: Range,
  now: number,
): Promise<Record<string, unknown>> {
  const to = dayOf(now);
  const from = to - days + 1;
  const range = Array.from({ length: days }, (_, i) => from + i);
  const [buildDays, stepDays, testTotals, runnerDays, cacheDays] = await Promise.all([
    deps.insights.buildDays(repoIds, from, to),
    deps.insights.stepDays(repoIds, from, to),
    deps.insights.testTotals(repoIds, from, to, 1000),
    deps.insights.runnerDays(repoIds, from, to),
    deps.insights.cacheDays(repoIds, from, to),
  ]);
  const byDay = new Map(buildDays.map((d) => [d.day, d]));
  const builds = buildDays.reduce((n, d) => n + d.builds, 0);
  const successes = buildDays.reduce((n, d) => n + d.successes, 0);
  const durations = merged(buildDays.map((d) => d.durations));
  const queues = merged(buildDays.map((d) => d.queues));

  const steps = new Map<
    string,
    { runs: number; failures: number; sum: number; days: Map<number, { runs: number; sum: number }> }
  >();
  for (const s of stepDays) {
    const step = steps.get(s.name) ?? { runs: 0, failures: 0, sum: 0, days: new Map() };
    step.runs += s.runs;
    step.failures += s.failures;
    step.sum += s.durationSumMs;
    step.days.set(s.day, { runs: s.runs, sum: s.durationSumMs });
    steps.set(s.name, step);
  }
  const slowest = [...steps]
    .map(([name, s]) => ({ name, ...s, mean: mean(s.sum, s.runs) }))
    .sort((a, b) => b.mean - a.mean || a.name.localeCompare(b.name))
    .slice(0, TOP);

  const named = async (list: typeof testTotals) =>
    Promise.all(
      list.map(async (total) => {
        const found = await deps.tests.findCase(total.caseId);
        return {
          id: total.caseId,
          suite: found?.suite ?? '',
          name: found?.name ?? '',
          failures: total.failures,
          flaky: total.flaky,
        };
      }),
    );
  const failing = testTotals.filter((t) => t.failures > 0).slice(0, TOP);
  const flakiest = [...testTotals]
    .filter((t) => t.flaky > 0)
    .sort((a, b) => b.flaky - a.flaky || b.failures - a.failures)
    .slice(0, TOP);

  const kinds = new Map<string, Map<number, { stages: number; busy: number }>>();
  for (const r of runnerDays) {
    const kind = kinds.get(r.kind) ?? new Map<number, { stages: number; busy: number }>();
    kind.set(r.day, { stages: r.stages, busy: r.busyMs });
    kinds.set(r.kind, kind);
  }
  const hits = cacheDays.reduce((n, d) => n + d.hits, 0);
  const misses = cacheDays.reduce((n, d) => n + d.misses, 0);
  const cacheByDay = new Map(cacheDays.map((d) => [d.day, d]));

  return {
    days,
    from: date(from),
    to: date(to),
    builds: {
      total: builds,
      successes,
      success_rate: ratio(successes, builds),
      duration_p50_ms: quantile(durations, 0.5),
      duration_p95_ms: quantile(durations, 0.95),
      queue_p50_ms: quantile(queues, 0.5),
      queue_p95_ms: quantile(queues, 0.95),
    },
    daily: range.map((day) => {
      const d = byDay.get(day);
      return {
        date: date(day),
        builds: d?.builds ?? 0,
        successes: d?.successes ?? 0,
        success_rate: ratio(d?.successes ?? 0, d?.builds ?? 0),
        duration_p50_ms: d === undefined ? 0 : quantile(d.durations, 0.5),
        duration_p95_ms: d === undefined ? 0 : quantile(d.durations, 0.95),
        queue_p50_ms: d === undefined ? 0 : quantile(d.queues, 0.5),
        queue_p95_ms: d === undefined ? 0 : quantile(d.queues, 0.95),
      };
    }),
    slowest_steps: slowest.map((s) => ({
      name: s.name,
      runs: s.runs,
      failures: s.failures,
      mean_ms: s.mean,
      daily: range.map((day) => {
        const d = s.days.get(day);
        return { date: date(day), runs: d?.runs ?? 0, mean_ms: mean(d?.sum ?? 0, d?.runs ?? 0) };
      }),
    })),
    failing_tests: await named(failing),
    flaky_tests: await named(flakiest),
    runners: [...kinds].map(([kind, byKind]) => ({
      kind,
      stages: [...byKind.values()].reduce((n, d) => n + d.stages, 0),
      busy_ms: [...byKind.values()].reduce((n, d) => n + d.busy, 0),
      daily: range.map((day) => ({
        date: date(day),
        stages: byKind.get(day)?.stages ?? 0,
        busy_ms: byKind.get(day)?.busy ?? 0,
      })),
    })),
    caches: {
      hits,
      misses,
      hit_rate: ratio(hits, hits + misses),
      daily: range.map((day) => {
        const d = cacheByDay.get(day);
        return {
          date: date(day),
          hits: d?.hits ?? 0,
          misses: d?.misses ?? 0,
          hit_rate: ratio(d?.hits ?? 0, (d?.hits ?? 0) + (d?.misses ?? 0)),
        };
      }),
    },
  };
}
