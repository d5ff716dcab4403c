import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/** The hash as this migration wrote it (written out here: a released migration never changes). */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

interface UsersAt13 {
  users: { id: number; token_hash: string; scm_token: string; scm_token_hash: string };
}

/**
 * API tokens stored as their SHA-256 hash (hex), in `users.token_hash`, which replaces `token`:
 * a copy of the database no longer lets anyone call the API as its users. Tokens are random (128
 * bits), so an unkeyed hash is as good as a keyed one and works with or without
 * SVC_DATABASE_SECRET. `scm_token_hash` is the SHA-256 of the provider token ('' for none): the
 * token itself is encrypted when svc has a key (a random nonce each time), so refreshes find and
 * compare it by this hash (UserStore.replaceScmToken). Encrypting the provider tokens, signing keys
 * and hook secrets needs the key, which migrations do not have: svc does it right after them, at
 * start (encryption/prepare.ts).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await db.schema.alterTable('users').renameColumn('token', 'token_hash').execute();
  await db.schema
    .alterTable('users')
    .addColumn('scm_token_hash', adapter.types.key, (c) => c.notNull().defaultTo(sql.lit('')))
    .execute();
  const users = db as unknown as Kysely<UsersAt13>;
  const rows = await users.selectFrom('users').select(['id', 'token_hash', 'scm_token']).execute();
  for (const row of rows) {
    await users
      .updateTable('users')
      .set({
        token_hash: sha256(row.token_hash),
        scm_token_hash: row.scm_token === '' ? '' : sha256(row.scm_token),
      })
      .where('id', '=', row.id)
      .execute();
  }
  await db.schema.createIndex('users_scm_token_hash_ix').on('users').column('scm_token_hash').execute();
}

export const secretsAtRest: Migration = {
  version: 12,
  name: 'API tokens hashed, provider token fingerprints',
  up,
};
