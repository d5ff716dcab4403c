import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `caches`: the cache index (CacheStore), one row per saved archive; the archive itself is the blob
 * store's object `blob`. An entry is unique per repository, scope (a git ref, at most 255
 * characters) and key (at most 512), but not through those columns: on MariaDB a utf8mb4 index
 * counts 4 bytes a character, and repo_id (8) + scope (1,020) + key (2,048) passes InnoDB's limit of
 * 3,072 bytes; its PAD SPACE collation would also make keys that differ by trailing spaces collide.
 * So `key_hash` is the SHA-256 (hex) of the JSON array `[scope, key]`, computed by the store, and
 * (repo_id, key_hash) is the unique constraint. `key` is text; `(repo_id, scope, created)` serves
 * restore_keys' newest-with-prefix lookup, `used` the least-recently-used listing of eviction.
 * Rows go with their repository (cascade): the store cannot name the blobs that leaves without an
 * index row, so the server's cache service finds them by listing the blob store.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'caches',
    {
      repo_id: 'ref',
      scope: 'key',
      key: 'text',
      key_hash: 'key',
      size: 'bigint',
      blob: 'text',
      created: 'bigint',
      used: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('caches_repo_key_uq', ['repo_id', 'key_hash'])
    .addForeignKeyConstraint('caches_repo_fk', ['repo_id'], 'repos', ['id'], (fk) => fk.onDelete('cascade'))
    .execute();
  await db.schema
    .createIndex('caches_repo_scope_ix')
    .on('caches')
    .columns(['repo_id', 'scope', 'created'])
    .execute();
  await db.schema.createIndex('caches_used_ix').on('caches').column('used').execute();
}

export const caches: Migration = { version: 16, name: 'cache index', up };
