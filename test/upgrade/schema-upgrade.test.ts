/**
 * Issue 32, upgrades: a database an older svc wrote (test/fixtures/upgrade/schema-<N>/, dumped by
 * each product's own tool from rows that svc's own store wrote: scripts/upgrade-fixtures.ts) is
 * restored into a fresh database and opened by this svc. It migrates to the newest schema and keeps
 * every user, repository, permission, secret (decrypted with the same SVC_DATABASE_SECRET), build,
 * stage, step, log line, cron job and runner token — on SQLite, MariaDB and PostgreSQL — and
 * counts its builds in the build insights that came after it (the backfill).
 *
 * And the rolling-upgrade rule (docs/database.md, "Upgrading"): servers of the older version that are
 * still running when a newer one migrates keep working, because a migration never drops or renames
 * a table or column and every column it adds can be left out of an INSERT. Checked here on the
 * schemas themselves: what the older svc's statements name still exists, and what they leave out
 * may be left out. (An older server that starts on the newer schema refuses it: migrations.test.ts.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { dayOf } from '../../src/core/insights.js';
import { InsightBackfill } from '../../src/server/insights/backfill.js';
import { InsightRollup } from '../../src/server/insights/rollup.js';
import { openStore } from '../../src/store/index.js';
import { LATEST_VERSION } from '../../src/store/migrations/index.js';
import { testDialects, type TestDialect } from '../support/databases.js';
import { columnsOf, loadDump } from './load-dump.js';
import { EXPECTED_UPGRADE_DATA, FIXTURE_SECRET_KEY, readUpgradeData } from './upgrade-data.js';
import { ROOT } from '../images/image-definition.js';

const FIXTURES = join(ROOT, 'test/fixtures/upgrade');
const versions = readdirSync(FIXTURES)
  .filter((dir) => dir.startsWith('schema-'))
  .map((dir) => Number(dir.slice('schema-'.length)));

const dumpOf = (version: number, dialect: TestDialect): string =>
  readFileSync(join(FIXTURES, `schema-${version}`, `${dialect.name.toLowerCase()}.sql`), 'utf8');

describe.each(testDialects())('upgrading a database of an older svc: $name', (dialect) => {
  it.skipIf(dialect.skip).each(versions)(
    'migrates schema %i to the newest and keeps every row and secret',
    async (version) => {
      expect(version).toBeLessThan(LATEST_VERSION);
      const database = await dialect.create();
      try {
        loadDump(database.datasource, dumpOf(version, dialect));
        const before = columnsOf(database.datasource);
        const logged: string[] = [];
        const store = await openStore({
          datasource: database.datasource,
          secretKey: FIXTURE_SECRET_KEY,
          logger: (line) => logged.push(line),
        });
        try {
          expect(store.schemaVersion).toBe(LATEST_VERSION);
          expect(logged.join('\n')).toContain(`migrated to schema version ${LATEST_VERSION}`);
          expect(await readUpgradeData(store)).toEqual(EXPECTED_UPGRADE_DATA);
          // And it goes on from there: the next build takes the next number.
          const repo = await store.repos.findUid(EXPECTED_UPGRADE_DATA.repo.uid);
          expect(await store.repos.setCounter(repo?.id ?? 0, 3)).toBe(true);
          // The builds of before insights are counted in them (issue 36), once.
          const logger = pino({ level: 'silent' });
          const backfill = () =>
            new InsightBackfill({ store, rollup: new InsightRollup({ store, logger }), logger }).pass();
          expect(await backfill()).toBe(2);
          expect(await backfill()).toBe(0);
          const day = dayOf(1_700_000_060_000);
          const [counted] = await store.insights.buildDays([repo?.id ?? 0], day, day);
          expect([counted?.builds, counted?.successes, counted?.durationSumMs]).toEqual([2, 1, 120_000]);
        } finally {
          await store.close();
        }
        // The rolling-upgrade rule, on this product's catalogue.
        const after = columnsOf(database.datasource);
        const gone = [...before.keys()].filter((column) => !after.has(column));
        expect(gone, 'columns an older server still names').toEqual([]);
        // New tables are the newer svc's alone; new columns of older tables meet older INSERTs.
        const oldTables = new Set([...before.keys()].map((column) => column.split('.')[0]));
        const required = [...after].filter(
          ([column, shape]) => !before.has(column) && oldTables.has(column.split('.')[0]) && !shape.optional,
        );
        expect(
          required.map(([column]) => column),
          'new columns an older server cannot leave out',
        ).toEqual([]);
      } finally {
        await database.drop();
      }
    },
    120_000,
  );
});
