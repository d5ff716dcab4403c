import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import type { Tables } from '../tables.js';
import type { Connection, DialectAdapter } from './adapter.js';
import { errorCode, unavailable } from './errors.js';
import { databaseFailure } from './failures.js';
import { GuardedDialect } from './guard.js';
import { SqliteLockWatch } from './sqlite-lock.js';
import { CachedStatements } from './sqlite-statements.js';

/** How long a writer waits for another process's write transaction before giving up. */
const BUSY_TIMEOUT_MS = 10_000;
/** The wait while another process is known to hold the lock for long (see SqliteLockWatch). */
const CONTENDED_TIMEOUT_MS = 100;

/**
 * Every transaction starts as a write transaction (BEGIN IMMEDIATE): a deferred one that reads and
 * then writes can fail with SQLITE_BUSY when another process wrote in between, whatever the timeout.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

function sqliteAdapter(file: string): DialectAdapter {
  return {
    product: 'SQLite',
    target: file,
    supportsReturning: true,
    maxBlobBytes: 128 * 1024 * 1024,
    types: { id: 'integer', ref: 'bigint', key: 'varchar(255)', text: 'text', blob: 'blob' },
    autoIncrementId: (column) => column.primaryKey().autoIncrement(),
    tableOptions: undefined,
    isUniqueViolation: (error) =>
      errorCode(error) === 'SQLITE_CONSTRAINT_UNIQUE' || errorCode(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isForeignKeyViolation: (error) => errorCode(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY',
    // A write transaction is SQLite's database-wide lock: a second process waits at BEGIN IMMEDIATE.
    withMigrationLock: (db, fn) => db.transaction().execute(fn),
  };
}

/**
 * Runs a pragma, again and again for up to BUSY_TIMEOUT_MS while another process holds the lock it
 * needs: changing the journal mode gives up at once (SQLITE_BUSY) instead of waiting, which two
 * processes opening a new file together run into.
 */
function waitingPragma(database: Database.Database, pragma: string): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma(pragma);
      return;
    } catch (error) {
      if (errorCode(error) !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      // Opening is synchronous: sleep this thread a little.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

/**
 * Opens (and creates, with its folder) the SQLite file: WAL journal, foreign keys on, a busy
 * timeout (shortened while another process holds the lock for long), statements prepared once
 * (CachedStatements); a locked file or a full disk fails statements with a DatabaseError.
 */
export function connectSqlite(path: string): Connection {
  const file = path === ':memory:' ? path : resolve(path);
  let database: Database.Database;
  try {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    database = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw unavailable(`cannot open the SQLite database ${file}`, error);
  }
  try {
    // The first statements read the file: this is where "file is not a database" shows.
    waitingPragma(database, 'journal_mode = WAL');
    // What better-sqlite3's build sets for WAL databases, but only when the file already was one:
    // a new file got FULL (a disk sync on every commit, ~0.1–0.4 ms here) until svc's next start.
    // With WAL, NORMAL loses no commit when svc stops or is killed and never corrupts the file;
    // only an operating-system crash or power loss can undo the last commits before a checkpoint.
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
  } catch (error) {
    database.close();
    throw unavailable(`cannot open the SQLite database ${file}`, error);
  }
  const adapter = sqliteAdapter(file);
  const lock = new SqliteLockWatch(database, { fullMs: BUSY_TIMEOUT_MS, shortMs: CONTENDED_TIMEOUT_MS });
  const statements = new CachedStatements(database);
  const dialect = new GuardedDialect(new ImmediateSqliteDialect({ database: statements }), {
    classify: (error) => databaseFailure(adapter.product, file, error),
    observe: (query, error) => lock.observe(query, error),
  });
  return {
    db: new Kysely<Tables>({ dialect }),
    adapter,
    // One connection: busy while a transaction is open on it.
    connections: () => ({
      open: database.open ? 1 : 0,
      idle: database.open && !database.inTransaction ? 1 : 0,
      statements: statements.size,
    }),
  };
}
