/*
 * Test support: a fresh, empty database per suite on each
 * real database the machine offers. SQLite always; MariaDB and PostgreSQL when .ci/services.sh has
 * exported their datasources (see test/support/services.ts for the skip-or-fail rule).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { service } from './services.js';
import { parseDatasource } from '../../src/config/datasource.js';
import type { Datasource } from '../../src/core/datasource.js';

/** A database that exists until `drop`. */
export interface TestDatabase {
  readonly datasource: Datasource;
  drop(): Promise<void>;
}

/** One database product the store tests run on. */
export interface TestDialect {
  readonly name: 'SQLite' | 'MariaDB' | 'PostgreSQL';
  /** True when the server is not available here (and this is not CI). */
  readonly skip: boolean;
  /** Creates a fresh, empty database. */
  create(): Promise<TestDatabase>;
}

type ServerDatasource = Extract<Datasource, { driver: 'sql_a' | 'sql_b' }>;

function uniqueName(): string {
  return `svc_test_${process.pid}_${randomBytes(4).toString('hex')}`;
}

const sqlite: TestDialect = {
  name: 'SQLite',
  skip: false,
  create() {
    const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
    return Promise.resolve({
      datasource: { driver: 'embedded_sql', path: join(dir, 'svc.sqlite') },
      drop: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    });
  },
};

function parsed(driver: 'sql_a' | 'sql_b', value: string | undefined): ServerDatasource | undefined {
  if (value === undefined) return undefined;
  const datasource = parseDatasource(driver, value);
  if (typeof datasource === 'string')
    throw new Error(`the test datasource ${value} is invalid: ${datasource}`);
  return datasource as ServerDatasource;
}

/** A dialect whose databases are created and dropped through a short-lived admin connection. */
function server(
  name: 'MariaDB' | 'PostgreSQL',
  base: ServerDatasource | undefined,
  admin: (base: ServerDatasource, statement: string) => Promise<void>,
  quote: (identifier: string) => string,
  dropSuffix: string,
): TestDialect {
  return {
    name,
    skip: base === undefined,
    async create() {
      if (base === undefined) throw new Error(`${name} is not available`);
      const database = uniqueName();
      await admin(base, `CREATE DATABASE ${quote(database)}`);
      return {
        datasource: { ...base, database },
        drop: () => admin(base, `DROP DATABASE IF EXISTS ${quote(database)}${dropSuffix}`),
      };
    },
  };
}

function credentials({ host, port, user, password, database }: ServerDatasource) {
  return { host, port, user, password, database };
}

async function mysqlAdmin(base: ServerDatasource, statement: string): Promise<void> {
  const connection = await createConnection(credentials(base));
  try {
    await connection.query(statement);
  } finally {
    await connection.end();
  }
}

async function postgresAdmin(base: ServerDatasource, statement: string): Promise<void> {
  const client = new pg.Client(credentials(base));
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** SQLite, MariaDB and PostgreSQL, each with `skip` set when its server is missing. */
export function testDialects(): TestDialect[] {
  const mariadb = service('SVC_TEST_SQL_A_DATASOURCE', 'MariaDB');
  const postgres = service('SVC_TEST_SQL_B_DATASOURCE', 'PostgreSQL');
  return [
    sqlite,
    server('MariaDB', parsed('sql_a', mariadb.value), mysqlAdmin, (id) => `\`${id}\``, ''),
    // FORCE: a test that failed half-way may still hold connections.
    server('PostgreSQL', parsed('sql_b', postgres.value), postgresAdmin, (id) => `"${id}"`, ' WITH (FORCE)'),
  ];
}

/** The datasource as SVC_DATABASE_DATASOURCE spells it, for tests that configure svc through settings. */
export function datasourceSetting(datasource: Datasource): string {
  switch (datasource.driver) {
    case 'embedded_sql':
      return datasource.path;
    case 'sql_a':
      return `${encodeURIComponent(datasource.user)}:${encodeURIComponent(datasource.password)}@tcp(${datasource.host}:${datasource.port})/${datasource.database}?parseTime=true`;
    case 'sql_b':
      return `postgres://${encodeURIComponent(datasource.user)}:${encodeURIComponent(datasource.password)}@${datasource.host}:${datasource.port}/${datasource.database}?sslmode=disable`;
  }
}
