import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type ColumnKind, type Migration } from './migration.js';

/**
 * Build insights (issue 36, InsightStore): daily rollups per repository, added to as builds finish
 * (each a counter row keyed by repository and UTC day, and what else it counts by), so that insights
 * never read builds or test results. They go with their repository; they outlive purged builds.
 * - `insight_recorded`: the builds already counted (a repeated update counts once).
 * - `insight_build_days`: builds, successes and the sums of their durations and queue times.
 * - `insight_build_buckets`: log-scaled histograms of durations (metric 0) and queue times (1),
 *   for percentiles.
 * - `insight_step_days`, `insight_test_days`, `insight_runner_days`, `insight_cache_days`: steps by
 *   name, failing and flaky tests by case, stages' busy time by runner kind, cache hits and misses.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(db, adapter, 'insight_recorded', { build_id: 'ref', day: 'int' }, { withId: false })
    .addPrimaryKeyConstraint('insight_recorded_pk', ['build_id'])
    .execute();
  const rollups: [string, Record<string, ColumnKind>, string[]][] = [
    [
      'insight_build_days',
      { builds: 'int', successes: 'int', duration_sum: 'bigint', queue_sum: 'bigint' },
      [],
    ],
    ['insight_build_buckets', { metric: 'int', bucket: 'int', n: 'int' }, ['metric', 'bucket']],
    ['insight_step_days', { name: 'key', runs: 'int', failures: 'int', duration_sum: 'bigint' }, ['name']],
    ['insight_test_days', { case_id: 'ref', failures: 'int', flaky: 'int' }, ['case_id']],
    ['insight_runner_days', { kind: 'key', stages: 'int', busy_ms: 'bigint' }, ['kind']],
    ['insight_cache_days', { hits: 'int', misses: 'int' }, []],
  ];
  for (const [table, columns, keys] of rollups) {
    await createTable(db, adapter, table, { repo_id: 'ref', day: 'int', ...columns }, { withId: false })
      .addPrimaryKeyConstraint(`${table}_pk`, ['repo_id', 'day', ...keys])
      .addForeignKeyConstraint(`${table}_repo_fk`, ['repo_id'], 'repos', ['id'], (fk) =>
        fk.onDelete('cascade'),
      )
      .execute();
  }
}

export const insights: Migration = { version: 23, name: 'build insights rollups', up };
