import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * Identities that follow the provider's immutable ids instead of names, which can be reused:
 * - `users.scm_uid`: the provider's id of the person. NULL for machine accounts and for accounts
 *   that have not logged in since; unique among the others (NULLs never collide on any dialect,
 *   which a partial index would need and MariaDB lacks).
 * - `repos.namespace_uid`: the provider's id of the repository's owner (organization, group,
 *   workspace, project or user); empty until the repository is next synchronized.
 * - `secrets.namespace_uid`: the owner an organization secret belongs to; empty for other scopes
 *   and for secrets written before, which are bound on first use (docs/security.md).
 * - `users.session_gen`: the generation of the account's sessions; a logout moves it on, ending
 *   every session cookie issued before on every server (cookies stay stateless otherwise).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await db.schema.alterTable('users').addColumn('scm_uid', adapter.types.key).execute();
  await db.schema.createIndex('users_scm_uid_uq').on('users').column('scm_uid').unique().execute();
  await db.schema
    .alterTable('users')
    .addColumn('session_gen', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const table of ['repos', 'secrets']) {
    await db.schema
      .alterTable(table)
      .addColumn('namespace_uid', adapter.types.key, (c) => c.notNull().defaultTo(sql.lit('')))
      .execute();
  }
}

export const providerIds: Migration = {
  version: 11,
  name: 'provider ids of users and namespaces; session generations',
  up,
};
