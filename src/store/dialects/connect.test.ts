import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseError, InvalidSettingsError } from '../../core/errors.js';
import type { Datasource } from '../../core/datasource.js';
import { openStore } from '../index.js';
import { testDialects } from '../../../test/support/databases.js';
import { connect } from './connect.js';

const dialects = testDialects();
const mariadb = dialects.find((d) => d.name === 'MariaDB');
const postgres = dialects.find((d) => d.name === 'PostgreSQL');
const quiet = () => undefined;

/** The rejection of opening the datasource. */
async function failure(datasource: Datasource): Promise<unknown> {
  return openStore({ datasource }).then(
    async (store) => {
      await store.close();
      return undefined;
    },
    (error: unknown) => error,
  );
}

describe('SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-connect-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates missing parent folders, uses WAL (synchronous NORMAL), foreign keys and a busy timeout', async () => {
    const path = join(dir, 'nested', 'deeper', 'svc.sqlite');
    const { db } = await connect({ driver: 'embedded_sql', path }, quiet);
    try {
      const pragma = async (name: string) =>
        Object.values(
          (await sql.raw<Record<string, unknown>>(`pragma ${name}`).execute(db)).rows[0] ?? {},
        )[0];
      expect(await pragma('journal_mode')).toBe('wal');
      // NORMAL (1) from the first open of a new file, not only once it already is a WAL file.
      expect(await pragma('synchronous')).toBe(1);
      expect(await pragma('foreign_keys')).toBe(1);
      expect(await pragma('busy_timeout')).toBeGreaterThan(0);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a path it cannot create, naming the file, without a stack in the message', async () => {
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const path = join(dir, 'a-file', 'svc.sqlite');
    const error = await failure({ driver: 'embedded_sql', path });
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect((error as Error).message).toMatch(
      new RegExp(`^cannot open the SQLite database ${path}: (EEXIST|ENOTDIR)`),
    );
    expect((error as Error).message).not.toContain('\n');
  });

  it('refuses a file that is not a database', async () => {
    const path = join(dir, 'garbage.sqlite');
    writeFileSync(path, 'x'.repeat(4096));
    const error = await failure({ driver: 'embedded_sql', path });
    expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
    expect((error as Error).message).toBe(`cannot open the SQLite database ${path}: file is not a database`);
  });
});

describe.skipIf(mariadb?.skip ?? true)('MySQL datasource', () => {
  it('says which server it cannot reach', async () => {
    const database = await mariadb?.create();
    if (database?.datasource.driver !== 'sql_a') throw new Error('expected a MariaDB datasource');
    try {
      const base = database.datasource;
      const error = await failure({ ...base, port: 1 });
      expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
      expect((error as Error).message).toBe(
        `cannot connect to MySQL at 127.0.0.1:1 (database ${base.database}, user ${base.user}): connect ECONNREFUSED 127.0.0.1:1`,
      );
      const denied = await failure({ ...base, password: 'wrong' });
      expect((denied as Error).message).toMatch(/^cannot connect to MySQL at .*: Access denied for user/);
    } finally {
      await database.drop();
    }
  });

  it('accepts the Go driver parameters and sets other parameters as session variables', async () => {
    const database = await mariadb?.create();
    if (database?.datasource.driver !== 'sql_a') throw new Error('expected a MariaDB datasource');
    try {
      const params = {
        parseTime: 'true',
        charset: 'utf8mb4,utf8',
        loc: 'Local',
        timeout: '5s',
        wait_timeout: '1234',
      };
      const { db } = await connect({ ...database.datasource, params }, quiet);
      try {
        const { rows } = await sql<{ wait: number }>`select @@session.wait_timeout as wait`.execute(db);
        expect(Number(rows[0]?.wait)).toBe(1234);
      } finally {
        await db.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});

describe.skipIf(postgres?.skip ?? true)('PostgreSQL datasource', () => {
  it('says which server it cannot reach', async () => {
    const database = await postgres?.create();
    if (database?.datasource.driver !== 'sql_b') throw new Error('expected a PostgreSQL datasource');
    try {
      const base = database.datasource;
      const error = await failure({ ...base, port: 1 });
      expect(error).toMatchObject({ code: 'DATABASE_UNAVAILABLE' });
      expect((error as Error).message).toBe(
        `cannot connect to PostgreSQL at 127.0.0.1:1 (database ${base.database}, user ${base.user}): connect ECONNREFUSED 127.0.0.1:1`,
      );
      // sslmode=require asks for TLS, which the test server does not offer.
      const tls = await failure({ ...base, params: { sslmode: 'require' } });
      expect((tls as Error).message).toMatch(
        /^cannot connect to PostgreSQL at .*: The server does not support SSL connections/,
      );
      expect(
        await failure({ ...base, params: { sslmode: 'disable', application_name: 'svc-test' } }),
      ).toBeUndefined();
    } finally {
      await database.drop();
    }
  });

  it('refuses an unknown parameter, naming it', async () => {
    const error = await failure({
      driver: 'sql_b',
      scheme: 'postgres',
      user: 'u',
      password: 'p',
      host: '127.0.0.1',
      port: 1,
      database: 'd',
      params: { sslmod: 'disable' },
    });
    expect(error).toBeInstanceOf(InvalidSettingsError);
    expect((error as Error).message).toContain('SVC_DATABASE_DATASOURCE: unknown parameter sslmod');
  });
});
