import type Database from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Distinct SQL texts kept prepared; svc's queries are a few hundred texts at most. */
const CAPACITY = 512;

/**
 * The better-sqlite3 database as Kysely's SQLite driver sees it, with each SQL text prepared once
 * and reused: Kysely prepares every statement it runs, and preparing (parsing and planning) cost
 * as much as running the short statements of the runner protocol. The least recently used
 * statements are dropped beyond CAPACITY (texts vary with the length of `in (…)` lists).
 *
 * Reusing a statement is safe here: Kysely runs one query at a time on SQLite's single connection,
 * and SQLite prepares a statement again by itself when the schema changed (migrations).
 */
export class CachedStatements implements SqliteDatabase {
  readonly #database: Database.Database;
  readonly #statements = new Map<string, SqliteStatement>();

  constructor(database: Database.Database) {
    this.#database = database;
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Most recently used last: Map keeps insertion order.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = this.#database.prepare(sql);
    this.#statements.set(sql, statement);
    if (this.#statements.size > CAPACITY) {
      const oldest = this.#statements.keys().next();
      if (oldest.done !== true) this.#statements.delete(oldest.value);
    }
    return statement;
  }

  /** SQL texts kept prepared now. */
  get size(): number {
    return this.#statements.size;
  }

  close(): void {
    this.#statements.clear();
    this.#database.close();
  }
}
