import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testDialects } from '../../../test/support/databases.js';
import type { BuildFacts } from '../../core/insights.js';
import { newRepo } from '../cases/fixtures.case.js';
import { connect } from '../dialects/connect.js';
import { openStore } from '../index.js';

const facts = (repoId: number, fields: Partial<BuildFacts>): BuildFacts => ({
  repoId,
  day: 20_000,
  succeeded: true,
  durationMs: 90_000,
  queueMs: 1_500,
  steps: [],
  stages: [{ kind: 'docker', busyMs: 80_000 }],
  failedTests: [],
  flakyTests: [],
  ...fields,
});

/**
 * Migration 24 on a database whose rollups an svc of schema 23 kept: the totals it creates add up
 * those rollups, so the metrics go on from the history, not from zero.
 */
describe.each(testDialects())('migration 24, insight totals: $name', (dialect) => {
  it.skipIf(dialect.skip)(
    'adds up the rollups kept before it',
    async () => {
      const database = await dialect.create();
      try {
        let store = await openStore({ datasource: database.datasource });
        const [a, b] = [(await store.repos.create(newRepo())).id, (await store.repos.create(newRepo())).id];
        await store.insights.record(1, facts(a, { failedTests: [5, 6], flakyTests: [6] }));
        await store.insights.record(2, facts(b, { day: 20_003, succeeded: false, durationMs: 4_000 }));
        await store.insights.record(
          3,
          facts(b, { stages: [{ kind: 'kubernetes', busyMs: 7_000 }], queueMs: 400_000 }),
        );
        await store.insights.countCache(a, 20_000, true);
        await store.insights.countCache(b, 20_003, false);
        const kept = await store.insights.totals();
        await store.close();

        // Back to schema 23: no totals, the rollups as they were.
        const { db } = await connect(database.datasource, () => undefined);
        await sql`DROP TABLE insight_totals`.execute(db);
        await sql`DELETE FROM migrations WHERE version = 24`.execute(db);
        await db.destroy();

        store = await openStore({ datasource: database.datasource });
        try {
          const migrated = await store.insights.totals();
          expect(migrated).toEqual(kept);
          expect(migrated).toMatchObject({
            builds: 3,
            successes: 2,
            durationSumMs: 184_000,
            queueSumMs: 403_000,
            runners: [
              { kind: 'docker', stages: 2, busyMs: 160_000 },
              { kind: 'kubernetes', stages: 1, busyMs: 7_000 },
            ],
            cache: { hits: 1, misses: 1 },
            tests: { failures: 2, flaky: 1 },
          });
          expect([...migrated.durations.values()].reduce((x, y) => x + y, 0)).toBe(3);
        } finally {
          await store.close();
        }
      } finally {
        await database.drop();
      }
    },
    60_000,
  );
});
