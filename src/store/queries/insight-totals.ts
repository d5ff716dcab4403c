import { sql, type Kysely } from 'kysely';
import type { InsightTotals } from '../../core/insights.js';
import type { Tables } from '../tables.js';

type Row = Record<string, number | string | null>;

/** A SUM as a number: the drivers send big sums as strings (MySQL's DECIMAL, PostgreSQL's numeric). */
const num = (value: number | string | null | undefined): number => Number(value ?? 0) || 0;

/**
 * Every repository's rollups added up over all days (the Prometheus counters of GET /metrics):
 * five grouped sums over the rollup tables, whose rows number repositories × days (× buckets),
 * never builds or test results.
 */
export async function insightTotals(db: Kysely<Tables>): Promise<InsightTotals> {
  const rows = async (query: ReturnType<typeof sql<Row>>) => (await query.execute(db)).rows;
  const [builds, buckets, runners, cache, tests] = await Promise.all([
    rows(sql<Row>`SELECT SUM(builds) AS builds, SUM(successes) AS successes,
      SUM(duration_sum) AS duration_sum, SUM(queue_sum) AS queue_sum FROM insight_build_days`),
    rows(sql<Row>`SELECT metric, bucket, SUM(n) AS n FROM insight_build_buckets GROUP BY metric, bucket`),
    rows(sql<Row>`SELECT kind, SUM(stages) AS stages, SUM(busy_ms) AS busy_ms
      FROM insight_runner_days GROUP BY kind`),
    rows(sql<Row>`SELECT SUM(hits) AS hits, SUM(misses) AS misses FROM insight_cache_days`),
    rows(sql<Row>`SELECT SUM(failures) AS failures, SUM(flaky) AS flaky FROM insight_test_days`),
  ]);
  const durations = new Map<number, number>();
  const queues = new Map<number, number>();
  for (const row of buckets) (num(row.metric) === 0 ? durations : queues).set(num(row.bucket), num(row.n));
  const [build, hits, failures] = [builds[0] ?? {}, cache[0] ?? {}, tests[0] ?? {}];
  return {
    builds: num(build.builds),
    successes: num(build.successes),
    durationSumMs: num(build.duration_sum),
    queueSumMs: num(build.queue_sum),
    durations,
    queues,
    runners: runners
      .map((row) => ({ kind: String(row.kind), stages: num(row.stages), busyMs: num(row.busy_ms) }))
      .sort((a, b) => a.kind.localeCompare(b.kind)),
    cache: { hits: num(hits.hits), misses: num(hits.misses) },
    tests: { failures: num(failures.failures), flaky: num(failures.flaky) },
  };
}
