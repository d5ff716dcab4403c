import type { ColumnDataType, ColumnDefinitionBuilder, Expression, Kysely } from 'kysely';
import type { DatabaseConnections } from '../../core/gauges.js';
import type { Tables } from '../tables.js';

/** A column type: one of Kysely's names, or raw SQL for a type Kysely does not name (`longblob`). */
export type DataType = ColumnDataType | Expression<unknown>;

/**
 * The column types the schema uses, spelled for one dialect. Released migrations build their tables
 * from these: change a type with a new migration, not here.
 */
export interface ColumnTypes {
  /** Auto-incrementing primary keys. */
  readonly id: DataType;
  /** Columns that reference an id. */
  readonly ref: DataType;
  /** Short strings that take part in keys and indexes. */
  readonly key: DataType;
  /** Unbounded text (commit messages, secret values, JSON). */
  readonly text: DataType;
  /** Large binary values (logs). */
  readonly blob: DataType;
}

/**
 * What differs between SQLite, MySQL/MariaDB and PostgreSQL, in one object per dialect, so that the
 * query classes and migrations never ask which database they run on.
 */
export interface DialectAdapter {
  /** The database product, for messages: `SQLite`, `MySQL`, `PostgreSQL`. */
  readonly product: string;
  /** Where the database is, for messages: a file, or `host:port/database`. */
  readonly target: string;
  /**
   * INSERT … RETURNING and UPDATE … RETURNING work (otherwise the driver reports the inserted id,
   * and an updated row is read after the update).
   */
  readonly supportsReturning: boolean;
  /** Largest value one statement may carry in a blob column; longer logs are stored in parts. */
  readonly maxBlobBytes: number;
  readonly types: ColumnTypes;
  /** Marks an id column as the auto-incrementing primary key. */
  autoIncrementId(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Table options appended to CREATE TABLE (character set, engine), if any. */
  readonly tableOptions: Expression<unknown> | undefined;
  /** The error is a violation of a unique or primary key. */
  isUniqueViolation(error: unknown): boolean;
  /** The error is a violation of a foreign key (the referenced row is missing). */
  isForeignKeyViolation(error: unknown): boolean;
  /**
   * Runs `fn` while holding the database-wide lock that keeps two processes from migrating at once.
   * `fn` gets a handle bound to the locking connection: a transaction where the lock is one (SQLite),
   * otherwise a single connection on which `fn` opens its own transactions.
   */
  withMigrationLock<T>(db: Kysely<Tables>, fn: (db: Kysely<Tables>) => Promise<T>): Promise<T>;
}

/** An open database: the Kysely instance and its dialect's adapter. */
export interface Connection {
  readonly db: Kysely<Tables>;
  readonly adapter: DialectAdapter;
  /** What the driver's pool holds now (for /metrics). */
  connections(): DatabaseConnections;
}
