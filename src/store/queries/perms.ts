import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { Perm, PermStore } from '../../core/perm.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { PermRow, Tables } from '../tables.js';
import { groups, ReadBatch } from './read-batch.js';
import { bool, changed, flag, write } from './rows.js';

export function toPerm(row: Selectable<PermRow>): Perm {
  return {
    userId: Number(row.user_id),
    repoId: Number(row.repo_id),
    read: bool(row.read),
    write: bool(row.write),
    admin: bool(row.admin),
    synced: Number(row.synced),
    created: Number(row.created),
    updated: Number(row.updated),
  };
}

/** The key of a permission in the read batch. */
const keyOf = (userId: number, repoId: number): string => `${userId}:${repoId}`;

/** Permissions in the `perms` table, keyed by (user, repository). */
export class SqlPermStore implements PermStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  /**
   * Finds asked for at the same time are read with one query per user: listing a user's
   * repositories asks for the permission on each at once, a thousand in a large organisation.
   */
  readonly #byKey = new ReadBatch<string, Perm>(async (keys) => {
    const wanted = keys.map((key) => key.split(':').map(Number) as [number, number]);
    const found = new Map<string, Perm>();
    for (const [userId, pairs] of Map.groupBy(wanted, ([userId]) => userId)) {
      for (const repoIds of groups(pairs.map(([, repoId]) => repoId))) {
        const rows = await this.#db
          .selectFrom('perms')
          .selectAll()
          .where('user_id', '=', userId)
          .where('repo_id', 'in', repoIds)
          .execute();
        for (const perm of rows.map(toPerm)) found.set(keyOf(perm.userId, perm.repoId), perm);
      }
    }
    return found;
  });

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  find(userId: number, repoId: number): Promise<Perm | undefined> {
    return this.#byKey.get(keyOf(userId, repoId));
  }

  async listRepo(repoId: number): Promise<Perm[]> {
    const rows = await this.#db
      .selectFrom('perms')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('user_id')
      .execute();
    return rows.map(toPerm);
  }

  /**
   * Update, else insert; when a concurrent upsert inserted first, update again. Portable where
   * ON CONFLICT / ON DUPLICATE KEY differ by dialect, and permissions change rarely.
   */
  async upsert(perm: Omit<Perm, 'created' | 'updated'>): Promise<Perm> {
    const now = Date.now();
    const values = {
      read: flag(perm.read),
      write: flag(perm.write),
      admin: flag(perm.admin),
      synced: perm.synced,
    };
    const update = async () =>
      changed(
        await this.#db
          .updateTable('perms')
          .set({ ...values, updated: now })
          .where('user_id', '=', perm.userId)
          .where('repo_id', '=', perm.repoId)
          .executeTakeFirstOrThrow(),
      ) > 0;
    const missing = `user ${perm.userId} or repository ${perm.repoId}`;
    if (!(await update())) {
      const inserted = await write(
        this.#adapter,
        async () => {
          await this.#db
            .insertInto('perms')
            .values({ user_id: perm.userId, repo_id: perm.repoId, ...values, created: now, updated: now })
            .execute();
          return true;
        },
        { missing },
      ).catch((error: unknown) => {
        if (this.#adapter.isUniqueViolation(error)) return false;
        throw error;
      });
      if (!inserted) await update();
    }
    const stored = await this.find(perm.userId, perm.repoId);
    // Deleted by someone else in between.
    if (stored === undefined)
      throw new NotFoundError(`permission of user ${perm.userId} on repository ${perm.repoId}`);
    return stored;
  }

  async delete(userId: number, repoId: number): Promise<void> {
    await this.#db.deleteFrom('perms').where('user_id', '=', userId).where('repo_id', '=', repoId).execute();
  }
}
