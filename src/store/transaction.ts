import type { Kysely } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Runs `fn` in a transaction, or directly when `db` already is one (during open on SQLite, where
 * the migration lock itself is a transaction and transactions do not nest).
 */
export function inTransaction<T>(db: Kysely<Tables>, fn: (trx: Kysely<Tables>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
