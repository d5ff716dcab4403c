import type Database from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { failureKind } from './failures.js';

/** Statements that only read: they go on in WAL mode while another process holds the write lock. */
const READ = /^\s*(select|with|pragma)\b/i;

/**
 * Shortens SQLite's busy wait while another process holds the write lock for long. better-sqlite3
 * waits synchronously, so every write that waits for the lock stops the whole server — API,
 * runners, live logs — for the busy timeout. The first write that gives up after the full wait
 * shows the lock is held for long: from then on writes wait only `shortMs` and fail with
 * DATABASE_UNAVAILABLE (runners retry), until one gets the lock and the full wait is back.
 */
export class SqliteLockWatch {
  readonly #database: Database.Database;
  readonly #fullMs: number;
  readonly #shortMs: number;
  #contended = false;

  constructor(database: Database.Database, timeouts: { fullMs: number; shortMs: number }) {
    this.#database = database;
    this.#fullMs = timeouts.fullMs;
    this.#shortMs = timeouts.shortMs;
  }

  /** Hears a statement's outcome: a lock error shortens the wait, a write that went through restores it. */
  observe(query: CompiledQuery, error: unknown): void {
    if (error !== undefined) {
      if (!this.#contended && failureKind('SQLite', error) === 'locked') this.#set(true);
    } else if (this.#contended && !READ.test(query.sql)) {
      this.#set(false);
    }
  }

  #set(contended: boolean): void {
    this.#contended = contended;
    this.#database.pragma(`busy_timeout = ${contended ? this.#shortMs : this.#fullMs}`);
  }
}
