import type {
  AbortableOperationOptions,
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import type { DatabaseError } from '../../core/errors.js';

/** How a guarded dialect judges and watches what its driver does. */
export interface GuardOptions {
  /** The DatabaseError a driver error stands for, or undefined to let it through unchanged. */
  classify(error: unknown): DatabaseError | undefined;
  /** Hears every statement's outcome (SQLite's lock watch); `error` is the driver's, before classifying. */
  observe?(query: CompiledQuery, error: unknown): void;
}

/**
 * A Kysely dialect whose driver reports a database that cannot serve now — connection refused or
 * lost, server restarting, file locked, disk full — as a DatabaseError (DATABASE_UNAVAILABLE,
 * DATABASE_FULL) instead of the driver's own error, wherever it happens: taking a connection from
 * the pool, a statement, BEGIN or COMMIT. The HTTP layer answers those 503 and 507, so that clients
 * and runners back off and try again, while errors about the query itself (a unique key) reach the
 * callers unchanged. The pools reconnect by themselves once the database is back: nothing here
 * keeps state about the outage.
 */
export class GuardedDialect implements Dialect {
  readonly #inner: Dialect;
  readonly #options: GuardOptions;

  constructor(inner: Dialect, options: GuardOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  createDriver(): Driver {
    return new GuardedDriver(this.#inner.createDriver(), this.#options);
  }

  createQueryCompiler(): QueryCompiler {
    return this.#inner.createQueryCompiler();
  }

  createAdapter(): ReturnType<Dialect['createAdapter']> {
    return this.#inner.createAdapter();
  }

  createIntrospector(
    db: Parameters<Dialect['createIntrospector']>[0],
  ): ReturnType<Dialect['createIntrospector']> {
    return this.#inner.createIntrospector(db);
  }
}

/** A connection of the inner driver, with its statements' errors classified. */
class GuardedConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    readonly options: GuardOptions,
  ) {}

  async executeQuery<R>(query: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> {
    try {
      const result = await this.inner.executeQuery<R>(query, options);
      this.options.observe?.(query, undefined);
      return result;
    } catch (error) {
      this.options.observe?.(query, error);
      throw this.options.classify(error) ?? error;
    }
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize: number,
    options?: AbortableOperationOptions,
  ): AsyncIterableIterator<QueryResult<R>> {
    try {
      yield* this.inner.streamQuery<R>(query, chunkSize, options);
    } catch (error) {
      throw this.options.classify(error) ?? error;
    }
  }
}

function unwrap(connection: DatabaseConnection): DatabaseConnection {
  return connection instanceof GuardedConnection ? connection.inner : connection;
}

class GuardedDriver implements Driver {
  readonly #inner: Driver;
  readonly #options: GuardOptions;

  constructor(inner: Driver, options: GuardOptions) {
    this.#inner = inner;
    this.#options = options;
  }

  async #guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.#options.classify(error) ?? error;
    }
  }

  init(): Promise<void> {
    return this.#guard(() => this.#inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.#guard(() => this.#inner.acquireConnection());
    return new GuardedConnection(connection, this.#options);
  }

  /** BEGIN and COMMIT run through the guarded connection: SQLite's lock shows at BEGIN IMMEDIATE. */
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#guard(() => this.#inner.beginTransaction(connection, settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#guard(() => this.#inner.commitTransaction(connection));
  }

  /**
   * A rollback that fails is not reported: Kysely would throw its error instead of the one that
   * made the transaction fail, and the only ways it fails are a connection already lost (the pool
   * discards it) or a transaction the database already rolled back itself (SQLite when the disk
   * is full).
   */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#inner.rollbackTransaction(connection).catch(() => undefined);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection));
  }

  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}
