import { createHash } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CacheEntry, CacheStore, NewCacheEntry } from '../../core/cache.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { CacheRow, Tables } from '../tables.js';
import { groups } from './read-batch.js';
import { changed, insertId, write } from './rows.js';

/** What makes (repository, scope, key) unique: migration 016 says why not the columns themselves. */
export function cacheKeyHash(scope: string, key: string): string {
  return createHash('sha256')
    .update(JSON.stringify([scope, key]))
    .digest('hex');
}

/** `prefix` as a LIKE pattern (escape character `!`) that matches it literally at the start. */
function startsWith(prefix: string): string {
  return `${prefix.replace(/[!%_]/g, '!$&')}%`;
}

function toEntry(row: Selectable<CacheRow>): CacheEntry {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    scope: row.scope,
    key: row.key,
    size: Number(row.size),
    blob: row.blob,
    created: Number(row.created),
    used: Number(row.used),
  };
}

/**
 * The `caches` table. `put` is select, delete and insert in one transaction (as the status outbox
 * does; the replacement gets a new id), the same statements on every dialect, with the repository's
 * row locked as the queue's limited take does: the puts of a repository, of every server, follow
 * one another, so each answers as replaced exactly the entry it deleted, and no two puts of a key
 * race to insert it.
 */
export class SqlCacheStore implements CacheStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(repoId: number, scope: string, key: string): Promise<CacheEntry | undefined> {
    const row = await this.#db
      .selectFrom('caches')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('key_hash', '=', cacheKeyHash(scope, key))
      .executeTakeFirst();
    return row && toEntry(row);
  }

  /**
   * LIKE alone ignores the case of ASCII letters on SQLite, `=` alone ignores trailing spaces on
   * MariaDB (PAD SPACE collation): together they mean "starts with" on every dialect. (The scope's
   * `=` needs no such help: a git ref never ends with a space.)
   */
  async findPrefix(repoId: number, scope: string, prefix: string): Promise<CacheEntry | undefined> {
    const row = await this.#db
      .selectFrom('caches')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('scope', '=', scope)
      .where(sql<boolean>`${sql.ref('key')} like ${startsWith(prefix)} escape '!'`)
      .where(sql<string>`substr(${sql.ref('key')}, 1, ${[...prefix].length})`, '=', prefix)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row && toEntry(row);
  }

  async list(repoId: number): Promise<CacheEntry[]> {
    const rows = await this.#db
      .selectFrom('caches')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('created', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(toEntry);
  }

  async unusedSince(before: number, limit: number): Promise<CacheEntry[]> {
    const rows = await this.#db
      .selectFrom('caches')
      .selectAll()
      .where('used', '<', before)
      .orderBy('used')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toEntry);
  }

  async put(entry: NewCacheEntry): Promise<{ entry: CacheEntry; replaced: CacheEntry | undefined }> {
    const keyHash = cacheKeyHash(entry.scope, entry.key);
    const values = {
      repo_id: entry.repoId,
      scope: entry.scope,
      key: entry.key,
      key_hash: keyHash,
      size: entry.size,
      blob: entry.blob,
      created: entry.created,
      used: entry.used,
    };
    // SQLite has no row locks, and needs none: svc keeps it to one server, whose writes it serializes.
    const rowLocks = this.#adapter.product !== 'SQLite';
    // Read committed (MySQL's default is repeatable read): the select after the lock must see what
    // the put this one waited for committed.
    const transaction = rowLocks
      ? this.#db.transaction().setIsolationLevel('read committed')
      : this.#db.transaction();
    const replace = () =>
      transaction.execute(async (trx) => {
        // The puts of a repository wait here for the one under way, so that each replaces the last.
        if (rowLocks) {
          await trx.selectFrom('repos').select('id').where('id', '=', entry.repoId).forUpdate().execute();
        }
        const old = await trx
          .selectFrom('caches')
          .selectAll()
          .where('repo_id', '=', entry.repoId)
          .where('key_hash', '=', keyHash)
          .executeTakeFirst();
        let replaced: CacheEntry | undefined;
        if (old !== undefined) {
          const deleted = await trx.deleteFrom('caches').where('id', '=', old.id).executeTakeFirst();
          // Otherwise a delete removed it since the select.
          if (changed(deleted) === 1) replaced = toEntry(old);
        }
        const id = await insertId(this.#adapter, trx.insertInto('caches').values(values));
        return { entry: { ...entry, id }, replaced };
      });
    return write(this.#adapter, replace, { missing: `repository ${entry.repoId}` });
  }

  async touch(id: number, used: number): Promise<void> {
    await this.#db.updateTable('caches').set({ used }).where('id', '=', id).execute();
  }

  async delete(ids: readonly number[]): Promise<void> {
    for (const group of groups(ids)) {
      await this.#db.deleteFrom('caches').where('id', 'in', group).execute();
    }
  }

  async totalSize(repoId: number): Promise<number> {
    const row = await this.#db
      .selectFrom('caches')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size'), sql<number>`0`).as('total'))
      .where('repo_id', '=', repoId)
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }
}
