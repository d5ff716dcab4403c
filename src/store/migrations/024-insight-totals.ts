import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

type Row = Record<string, number | string | null>;

/**
 * All-time totals of the insight rollups (issue 36, the Prometheus metrics of GET /metrics): one
 * counter row per metric and label, added to as each build is counted, so that a scrape reads a
 * few dozen rows however many years of days the rollups hold. Not per repository: a counter never
 * goes down when a repository goes. Filled here from the rollups counted so far.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'insight_totals',
    { metric: 'key', label: 'key', n: 'bigint' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('insight_totals_pk', ['metric', 'label'])
    .execute();
  const rows = async (query: ReturnType<typeof sql<Row>>) => (await query.execute(db)).rows;
  const totals: { metric: string; label: string; n: number }[] = [];
  const add = (metric: string, label: string, value: unknown) => {
    const n = Number(value ?? 0) || 0;
    if (n !== 0) totals.push({ metric, label, n });
  };
  const [builds] = await rows(sql<Row>`SELECT SUM(builds) AS builds, SUM(successes) AS successes,
    SUM(duration_sum) AS duration_sum, SUM(queue_sum) AS queue_sum FROM insight_build_days`);
  for (const column of ['builds', 'successes', 'duration_sum', 'queue_sum'])
    add(column, '', builds?.[column]);
  for (const row of await rows(
    sql<Row>`SELECT metric, bucket, SUM(n) AS n FROM insight_build_buckets GROUP BY metric, bucket`,
  ))
    add(Number(row.metric) === 0 ? 'duration_bucket' : 'queue_bucket', String(Number(row.bucket)), row.n);
  for (const row of await rows(
    sql<Row>`SELECT kind, SUM(stages) AS stages, SUM(busy_ms) AS busy_ms FROM insight_runner_days GROUP BY kind`,
  )) {
    add('runner_stages', String(row.kind), row.stages);
    add('runner_busy', String(row.kind), row.busy_ms);
  }
  const [cache] = await rows(
    sql<Row>`SELECT SUM(hits) AS hits, SUM(misses) AS misses FROM insight_cache_days`,
  );
  add('cache_hits', '', cache?.hits);
  add('cache_misses', '', cache?.misses);
  const [tests] = await rows(
    sql<Row>`SELECT SUM(failures) AS failures, SUM(flaky) AS flaky FROM insight_test_days`,
  );
  add('test_failures', '', tests?.failures);
  add('test_flaky', '', tests?.flaky);
  for (const row of totals)
    await sql`INSERT INTO insight_totals (metric, label, n) VALUES (${row.metric}, ${row.label}, ${row.n})`.execute(
      db,
    );
}

export const insightTotals: Migration = { version: 24, name: 'insight totals', up };
