import pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Datasource } from '../../core/datasource.js';
import type { Tables } from '../tables.js';
import type { Connection, DialectAdapter } from './adapter.js';
import { describeError, errorCode } from './errors.js';
import { databaseFailure } from './failures.js';
import { GuardedDialect } from './guard.js';
import { parsePostgresParams } from './postgres-params.js';
import { StatementNames } from './postgres-statements.js';

type PostgresDatasource = Extract<Datasource, { driver: 'sql_b' }>;

/** The advisory lock key of svc's migrations ("svc" in ASCII); advisory locks are per database. */
const MIGRATION_LOCK_KEY = 0x737663;

/** PostgreSQL's type id of int8/bigint. */
const INT8_OID = 20;

/**
 * Type parsers of this pool only (pg's own registry is process-wide): int8 (ids, epoch milliseconds,
 * counts) as JS numbers, every other type as pg parses it.
 */
const types = { getTypeParser: typeParser as pg.CustomTypesConfig['getTypeParser'] };

function typeParser(oid: number, format?: 'text' | 'binary'): unknown {
  if (oid === INT8_OID && format !== 'binary') return (value: string) => Number(value);
  const parser: unknown = pg.types.getTypeParser(oid, format);
  return parser;
}

function postgresAdapter(target: string): DialectAdapter {
  return {
    product: 'PostgreSQL',
    target,
    supportsReturning: true,
    // Parts of 1 MiB: node-postgres reads one large value ~5× slower than the same bytes in parts
    // (measured: a 21 MiB log 1.5 s as one bytea, 0.3 s as 21 parts of 1 MiB; binary mode reads
    // the single value no faster), and bytea arrives as hexadecimal text, twice its size.
    maxBlobBytes: 1024 * 1024,
    types: { id: 'bigint', ref: 'bigint', key: 'varchar(255)', text: 'text', blob: 'bytea' },
    autoIncrementId: (column) => column.generatedByDefaultAsIdentity().primaryKey(),
    tableOptions: undefined,
    isUniqueViolation: (error) => errorCode(error) === '23505',
    isForeignKeyViolation: (error) => errorCode(error) === '23503',
    withMigrationLock: (db, fn) =>
      db.connection().execute(async (conn) => {
        await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
        try {
          return await fn(conn);
        } finally {
          await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
        }
      }),
  };
}

/** Creates the connection pool for PostgreSQL; nothing connects until the first query. */
export function connectPostgres(source: PostgresDatasource, log: (msg: string) => void): Connection {
  const params = parsePostgresParams(source.params);
  const target = `${source.host}:${source.port}/${source.database}`;
  const pool = new pg.Pool({
    host: source.host,
    port: source.port,
    user: source.user,
    password: source.password,
    database: source.database,
    ssl: params.ssl,
    connectionTimeoutMillis: params.connectTimeoutMs,
    application_name: params.applicationName,
    ...(params.options === undefined ? {} : { options: params.options }),
    types,
    max: 10,
  });
  // An idle connection that breaks (server restart) is dropped by the pool, which re-emits its error
  // here; unhandled, that would end the process. The connection's own listener below logs it.
  pool.on('error', () => undefined);
  // Every connection runs svc's queries as named statements: parsed and planned once each.
  const statements = new StatementNames();
  pool.on('connect', (client) => {
    statements.use(client);
    // The pool hears a connection's errors only while it is idle. One that breaks while checked out
    // but between statements (a transaction's JavaScript, a server shutdown's FATAL 57P01) emits
    // 'error' with no listener, which would end the process; heard here, its next statement fails
    // as unavailable and the pool drops it on release.
    client.on('error', (error) => log(`PostgreSQL ${target}: connection closed: ${describeError(error)}`));
  });
  const adapter = postgresAdapter(target);
  // A lost server fails statements with DATABASE_UNAVAILABLE; the pool opens new connections once it is back.
  const dialect = new GuardedDialect(new PostgresDialect({ pool }), {
    classify: (error) => databaseFailure(adapter.product, target, error),
  });
  return {
    db: new Kysely<Tables>({ dialect }),
    adapter,
    connections: () => ({ open: pool.totalCount, idle: pool.idleCount, statements: statements.size }),
  };
}
