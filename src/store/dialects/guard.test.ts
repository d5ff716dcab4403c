import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../core/errors.js';
import { freePort } from '../../../test/support/pebble.js';
import { testDialects } from '../../../test/support/databases.js';
import type { Tables } from '../tables.js';
import { connect } from './connect.js';
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

  // What a server shutdown does to every session, while this one runs no statement.
  const sessionEnders = {
    PostgreSQL: {
      id: sql<{ id: number }>`select pg_backend_pid() as id`,
      end: (id: number | undefined) => sql`select pg_terminate_backend(${id})`,
    },
    MariaDB: {
      id: sql<{ id: number }>`select connection_id() as id`,
      end: (id: number | undefined) => sql.raw(`kill connection ${Number(id)}`),
    },
  };
  for (const dialect of testDialects().filter((d) => d.name !== 'SQLite')) {
    it.skipIf(dialect.skip)(
      `${dialect.name} ending a connection that is checked out but idle (between statements): the next statement fails DATABASE_UNAVAILABLE, the process goes on, the pool serves again`,
      async () => {
        const database = await dialect.create();
        const { db } = await connect(database.datasource, () => undefined);
        const ender = sessionEnders[dialect.name as keyof typeof sessionEnders];
        try {
          const failed = await db.connection().execute(async (conn) => {
            const id = (await ender.id.execute(conn)).rows[0]?.id;
            await ender.end(id).execute(db);
            await new Promise((resolve) => setTimeout(resolve, 300));
            return rejection(() => raw(conn, 'select 1'));
          });
          expect(failed).toBeInstanceOf(DatabaseError);
          expect(failed).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
          expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
        } finally {
          await db.destroy();
          await database.drop();
        }
      },
    );
  }
});
