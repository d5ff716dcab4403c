import type { Kysely } from 'kysely';
import type { LeaseStore } from '../../core/cluster.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { changed } from './rows.js';

/**
 * Leases as rows of `leases`. Taking one is a conditional UPDATE (the holder renews, anyone takes
 * an expired lease), and the first take of a name an INSERT whose primary key lets one of several
 * servers win: no dialect-specific upsert and no lock held between statements.
 */
export class SqlLeaseStore implements LeaseStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async acquire(name: string, holder: string, at: number, ttl: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('leases')
      .set({ holder, expires: at + ttl })
      .where('name', '=', name)
      .where((eb) => eb.or([eb('holder', '=', holder), eb('expires', '<=', at)]))
      .executeTakeFirst();
    if (changed(result) > 0) return true;
    try {
      await this.#db
        .insertInto('leases')
        .values({ name, holder, expires: at + ttl })
        .execute();
      return true;
    } catch (error) {
      // Another server holds it (the UPDATE found its lease running) or just took it first.
      if (this.#adapter.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.#db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
  }
}
