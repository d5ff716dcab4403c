import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../core/errors.js';
import { freePort } from '../../../test/support/pebble.js';
import type { Tables } from '../tables.js';
import { connectMysql } from './mysql.js';
import { connectPostgres } from './postgres.js';
import { connectSqlite } from './sqlite.js';

/** The rejection of `run`, which must reject. */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

const raw = (db: Kysely<Tables>, text: string) => sql.raw(text).execute(db);

describe('a database that cannot serve now fails statements with a DatabaseError', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-guard-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite out of space: DATABASE_FULL, also inside a transaction; other errors stay as they were', async () => {
    const { db, adapter } = connectSqlite(join(dir, 'full.sqlite'));
    try {
      await raw(db, 'create table t (id integer primary key, data blob)');
      const pages = (await sql<{ n: number }>`select page_count as n from pragma_page_count()`.execute(db))
        .rows[0]?.n;
      // SQLite's own page limit answers SQLITE_FULL exactly as a full disk does.
      await raw(db, `pragma max_page_count = ${(pages ?? 0) + 2}`);
      const big = sql`insert into t (data) values (zeroblob(1000000))`;
      const full = await rejection(() => big.execute(db));
      expect(full).toBeInstanceOf(DatabaseError);
      expect(full).toMatchObject({ code: 'DATABASE_FULL' });
      expect((full as Error).message).toBe(
        `the SQLite database ${join(dir, 'full.sqlite')} is out of disk space: database or disk is full`,
      );
      // The transaction's own error, not the failed rollback of a transaction SQLite already ended.
      const inTransaction = await rejection(() => db.transaction().execute((trx) => big.execute(trx)));
      expect(inTransaction).toMatchObject({ code: 'DATABASE_FULL' });

      await raw(db, 'insert into t (id) values (1)');
      const duplicate = await rejection(() => raw(db, 'insert into t (id) values (1)'));
      expect(duplicate).not.toBeInstanceOf(DatabaseError);
      expect(adapter.isUniqueViolation(duplicate)).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it('PostgreSQL and MySQL with nobody listening: DATABASE_UNAVAILABLE naming the server', async () => {
    const port = await freePort();
    const server = { user: 'svc', password: 'svc', host: '127.0.0.1', port, database: 'svc', params: {} };
    const postgres = connectPostgres({ driver: 'sql_b', scheme: 'postgres', ...server }, () => undefined);
    const mysql = connectMysql({ driver: 'sql_a', ...server });
    try {
      for (const { db, adapter } of [postgres, mysql]) {
        const error = await rejection(() => raw(db, 'select 1'));
        expect(error).toBeInstanceOf(DatabaseError);
        expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
        expect((error as Error).message).toBe(
          `the ${adapter.product} database 127.0.0.1:${port}/svc is unavailable: connect ECONNREFUSED 127.0.0.1:${port}`,
        );
      }
    } finally {
      await Promise.all([postgres.db.destroy(), mysql.db.destroy()]);
    }
  });
});
