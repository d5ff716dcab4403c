import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../core/errors.js';
import { connect } from '../dialects/connect.js';
import { openStore } from '../index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { LATEST_VERSION, MIGRATIONS } from './index.js';

const run = promisify(execFile);
const child = fileURLToPath(new URL('../testing/open-child.case.ts', import.meta.url));

it('numbers the migrations 1, 2, 3, … without gaps', () => {
  expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  expect(LATEST_VERSION).toBe(MIGRATIONS.length);
});

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`migrations on ${dialect.name}`, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await dialect.create();
    });
    afterEach(async () => {
      await database.drop();
    });

    async function recorded(): Promise<{ version: number; applied: number }[]> {
      const { db } = await connect(database.datasource, () => undefined);
      try {
        const rows = await db
          .selectFrom('migrations')
          .select(['version', 'applied'])
          .orderBy('version')
          .execute();
        return rows.map((row) => ({ version: Number(row.version), applied: Number(row.applied) }));
      } finally {
        await db.destroy();
      }
    }

    it('brings a fresh database to the latest version, and applies nothing on reopening', async () => {
      const log: string[] = [];
      const store = await openStore({ datasource: database.datasource, logger: (msg) => log.push(msg) });
      expect(store.schemaVersion).toBe(LATEST_VERSION);
      await store.ping();
      await store.close();
      expect(log).toContain(`database: migrated to schema version 1 (initial schema)`);
      const first = await recorded();
      expect(first.map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));

      const again: string[] = [];
      const reopened = await openStore({ datasource: database.datasource, logger: (msg) => again.push(msg) });
      expect(reopened.schemaVersion).toBe(LATEST_VERSION);
      await reopened.close();
      expect(again).toEqual([]);
      expect(await recorded()).toEqual(first);
    });

    it('refuses a database written by a newer svc, and leaves it as it is', async () => {
      await (await openStore({ datasource: database.datasource })).close();
      const { db } = await connect(database.datasource, () => undefined);
      await db
        .insertInto('migrations')
        .values({ version: LATEST_VERSION + 1, name: 'from the future', applied: Date.now() })
        .execute();
      await db.destroy();
      const before = await recorded();

      const opening = openStore({ datasource: database.datasource });
      await expect(opening).rejects.toThrow(DatabaseError);
      await expect(opening).rejects.toMatchObject({ code: 'DATABASE_TOO_NEW' });
      await expect(opening).rejects.toThrow(
        `was written by a newer svc (schema version ${LATEST_VERSION + 1}, this svc knows up to version ${LATEST_VERSION}): upgrade svc`,
      );
      expect(await recorded()).toEqual(before);
    });

    it('lets only one of two processes opening a fresh database at once apply the migrations', async () => {
      const source = JSON.stringify(database.datasource);
      const outputs = await Promise.all(
        [1, 2].map(async () => (await run(process.execPath, ['--import', 'tsx', child, source])).stdout),
      );
      for (const output of outputs) expect(output).toContain(`schema ${LATEST_VERSION}\n`);
      const migratedLines = outputs.join('').match(/migrated to schema version/g) ?? [];
      expect(migratedLines).toHaveLength(MIGRATIONS.length);
      expect((await recorded()).map((row) => row.version)).toEqual(MIGRATIONS.map((m) => m.version));
    });
  });
}
