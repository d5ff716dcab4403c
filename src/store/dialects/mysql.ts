import { createPool } from 'mysql2';
import type { DatabaseConnections } from '../../core/gauges.js';
import { CompiledQuery, Kysely, MysqlDialect, sql } from 'kysely';
import { DatabaseError } from '../../core/errors.js';
import type { Datasource } from '../../core/datasource.js';
import type { Tables } from '../tables.js';
import type { Connection, DialectAdapter } from './adapter.js';
import { errorCode } from './errors.js';
import { databaseFailure } from './failures.js';
import { GuardedDialect } from './guard.js';
import { parseMysqlParams } from './mysql-params.js';

type MysqlDatasource = Extract<Datasource, { driver: 'sql_a' }>;

/** How long a process waits for another one's migrations before giving up. */
const LOCK_WAIT_SECONDS = 120;

/**
 * MySQL/MariaDB's default max_allowed_packet can be as small as 4 MiB (MariaDB: 16 MiB), and the
 * driver sends a blob as hexadecimal SQL text (twice its size): logs are stored in parts of 1 MiB.
 */
const MAX_BLOB_BYTES = 1024 * 1024;

function mysqlAdapter(source: MysqlDatasource): DialectAdapter {
  const target = `${source.host}:${source.port}/${source.database}`;
  // GET_LOCK names are server-wide: name the database so that different databases do not wait on each other.
  const lockName = `svc-migrate:${source.database}`.slice(0, 64);
  return {
    product: 'MySQL',
    target,
    supportsReturning: false,
    maxBlobBytes: MAX_BLOB_BYTES,
    types: { id: 'bigint', ref: 'bigint', key: 'varchar(255)', text: sql`mediumtext`, blob: sql`longblob` },
    autoIncrementId: (column) => column.autoIncrement().primaryKey(),
    // utf8mb4 whatever the server's default; binary collation compares like SQLite and PostgreSQL do.
    tableOptions: sql`engine = InnoDB default charset = utf8mb4 collate = utf8mb4_bin`,
    isUniqueViolation: (error) => errorCode(error) === 'ER_DUP_ENTRY',
    isForeignKeyViolation: (error) =>
      errorCode(error) === 'ER_NO_REFERENCED_ROW_2' || errorCode(error) === 'ER_NO_REFERENCED_ROW',
    withMigrationLock: (db, fn) =>
      db.connection().execute(async (conn) => {
        const result = await sql<{
          got: number | null;
        }>`select get_lock(${lockName}, ${LOCK_WAIT_SECONDS}) as got`.execute(conn);
        if (result.rows[0]?.got !== 1) {
          throw new DatabaseError(
            'DATABASE_UNAVAILABLE',
            `another svc process has been migrating the MySQL database ${target} for more than ${LOCK_WAIT_SECONDS} s (lock "${lockName}"); try again when it is done`,
          );
        }
        try {
          return await fn(conn);
        } finally {
          await sql`select release_lock(${lockName})`.execute(conn);
        }
      }),
  };
}

/** Creates the connection pool for MySQL 8 / MariaDB 10.11; nothing connects until the first query. */
export function connectMysql(source: MysqlDatasource): Connection {
  const params = parseMysqlParams(source.params);
  const pool = createPool({
    host: source.host,
    port: source.port,
    user: source.user,
    password: source.password,
    database: source.database,
    charset: 'UTF8MB4_BIN',
    connectTimeout: params.connectTimeoutMs,
    ...(params.ssl === undefined ? {} : { ssl: params.ssl }),
    connectionLimit: 10,
  });
  const dialect = new MysqlDialect({
    pool,
    onCreateConnection: async (connection) => {
      for (const [name, value] of params.sessionVariables) {
        // The name is checked to be a plain identifier; the value is bound.
        await connection.executeQuery(CompiledQuery.raw(`set session ${name} = ?`, [value]));
      }
    },
  });
  const adapter = mysqlAdapter(source);
  // A lost server fails statements with DATABASE_UNAVAILABLE; the pool opens new connections once it is back.
  const guarded = new GuardedDialect(dialect, {
    classify: (error) => databaseFailure(adapter.product, adapter.target, error),
  });
  return { db: new Kysely<Tables>({ dialect: guarded }), adapter, connections: () => poolSizes(pool) };
}

/**
 * mysql2's pool has no public count of its connections: its own queues (`_allConnections`,
 * `_freeConnections`, stable since mysql2 1.x) are read, and zero is said when they are absent.
 */
function poolSizes(pool: object): DatabaseConnections {
  const length = (name: string): number => {
    const queue: unknown = Reflect.get(pool, name);
    const size: unknown = typeof queue === 'object' && queue !== null ? Reflect.get(queue, 'length') : 0;
    return typeof size === 'number' ? size : 0;
  };
  return { open: length('_allConnections'), idle: length('_freeConnections'), statements: 0 };
}
