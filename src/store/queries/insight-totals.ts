import type { Kysely } from 'kysely';
import { bucketOf, type BuildFacts, type InsightTotals } from '../../core/insights.js';
import type { Tables } from '../tables.js';

/** A row of `insight_totals` (migration 024): what to add to the counter of a metric and label. */
export interface TotalRow extends Record<string, number | string> {
  metric: string;
  label: string;
  n: number;
}

/**
 * What one counted build adds to the all-time totals, in key order (the order every writer locks
 * rows in, so that builds finishing together never deadlock for long); counters left as they are
 * are left out.
 */
export function totalsOf(facts: BuildFacts): TotalRow[] {
  const rows: TotalRow[] = [
    { metric: 'builds', label: '', n: 1 },
    { metric: 'successes', label: '', n: facts.succeeded ? 1 : 0 },
    { metric: 'duration_sum', label: '', n: Math.max(0, facts.durationMs) },
    { metric: 'queue_sum', label: '', n: Math.max(0, facts.queueMs) },
    { metric: 'duration_bucket', label: String(bucketOf(facts.durationMs)), n: 1 },
    { metric: 'queue_bucket', label: String(bucketOf(facts.queueMs)), n: 1 },
    { metric: 'test_failures', label: '', n: facts.failedTests.length },
    { metric: 'test_flaky', label: '', n: new Set(facts.flakyTests).size },
  ];
  for (const stage of facts.stages) {
    rows.push({ metric: 'runner_stages', label: stage.kind, n: 1 });
    rows.push({ metric: 'runner_busy', label: stage.kind, n: Math.max(0, stage.busyMs) });
  }
  const summed = new Map<string, TotalRow>();
  for (const row of rows) {
    if (row.n === 0) continue;
    const key = `${row.metric}\u0000${row.label}`;
    const found = summed.get(key);
    if (found === undefined) summed.set(key, { ...row });
    else found.n += row.n;
  }
  return [...summed.values()].sort((a, b) =>
    a.metric === b.metric ? (a.label < b.label ? -1 : 1) : a.metric < b.metric ? -1 : 1,
  );
}

/** A cache lookup's addition to the totals. */
export function cacheTotal(hit: boolean): TotalRow {
  return { metric: hit ? 'cache_hits' : 'cache_misses', label: '', n: 1 };
}

/**
 * The all-time totals (the Prometheus counters of GET /metrics): every row of `insight_totals`, a
 * few dozen whatever the number of builds and days behind them.
 */
export async function readTotals(db: Kysely<Tables>): Promise<InsightTotals> {
  const rows = await db.selectFrom('insight_totals').select(['metric', 'label', 'n']).execute();
  const value = (metric: string, label = '') =>
    Number(rows.find((row) => row.metric === metric && row.label === label)?.n ?? 0);
  const histogram = (metric: string) =>
    new Map(rows.filter((row) => row.metric === metric).map((row) => [Number(row.label), Number(row.n)]));
  const kinds = [...new Set(rows.filter((row) => row.metric === 'runner_stages').map((row) => row.label))];
  return {
    builds: value('builds'),
    successes: value('successes'),
    durationSumMs: value('duration_sum'),
    queueSumMs: value('queue_sum'),
    durations: histogram('duration_bucket'),
    queues: histogram('queue_bucket'),
    runners: kinds
      .sort((a, b) => a.localeCompare(b))
      .map((kind) => ({ kind, stages: value('runner_stages', kind), busyMs: value('runner_busy', kind) })),
    cache: { hits: value('cache_hits'), misses: value('cache_misses') },
    tests: { failures: value('test_failures'), flaky: value('test_flaky') },
  };
}
