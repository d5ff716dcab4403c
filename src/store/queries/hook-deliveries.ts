import type { Kysely } from 'kysely';
import type { HookDeliveryStore } from '../../core/hook-delivery.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { changed, write } from './rows.js';

/**
 * The `hook_deliveries` table. A claim is one multi-row INSERT, never a read then a write: the
 * statement is atomic on every dialect, so either all of a delivery's keys are recorded or, when the
 * primary key refuses one of them (the delivery was taken already, maybe by another server this
 * very moment), none is.
 */
export class SqlHookDeliveryStore implements HookDeliveryStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async claim(repoId: number, keys: readonly string[], now: number): Promise<boolean> {
    const rows = [...new Set(keys)].map((delivery) => ({ repo_id: repoId, delivery, created: now }));
    if (rows.length === 0) return true;
    try {
      await write(this.#adapter, () => this.#db.insertInto('hook_deliveries').values(rows).execute(), {
        missing: `repository ${repoId}`,
      });
      return true;
    } catch (error) {
      if (this.#adapter.isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async forget(repoId: number, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.#db
      .deleteFrom('hook_deliveries')
      .where('repo_id', '=', repoId)
      .where('delivery', 'in', [...keys])
      .execute();
  }

  async prune(before: number): Promise<number> {
    return changed(
      await this.#db.deleteFrom('hook_deliveries').where('created', '<', before).executeTakeFirst(),
    );
  }
}
