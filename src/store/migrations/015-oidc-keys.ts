import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `oidc_keys`: the keys that sign jobs' OpenID Connect tokens, shared by every server of the
 * database. One key per rotation period (`slot`, unique: when two servers make a period's key at
 * once, one insert wins and both sign with it); `private_key` is PKCS #8 PEM, encrypted with
 * SVC_DATABASE_SECRET like the other credentials; `expires` says when no token it signed is valid,
 * so that the JWKS stops publishing it. `repos.fork_id_tokens`: the repository lets builds of forks'
 * pull requests have ID tokens too (off: they get none).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'oidc_keys',
    {
      kid: 'key',
      slot: 'key',
      algorithm: 'key',
      public_jwk: 'text',
      private_key: 'text',
      signs_from: 'bigint',
      signs_until: 'bigint',
      expires: 'bigint',
      created: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('oidc_keys_slot_uq', ['slot'])
    .addUniqueConstraint('oidc_keys_kid_uq', ['kid'])
    .execute();
  await db.schema.createIndex('oidc_keys_expires_ix').on('oidc_keys').column('expires').execute();
  await db.schema
    .alterTable('repos')
    .addColumn('fork_id_tokens', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export const oidcKeys: Migration = { version: 15, name: 'OpenID Connect signing keys', up };
