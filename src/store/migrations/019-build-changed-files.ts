import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * `builds.changed_files`: what the build's `paths` conditions read (issue 35) — the provider's list
 * of changed files or why it is not known, and the pipelines left out — as JSON. Null for every
 * build before, and for builds whose file has no `paths` condition.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await db.schema.alterTable('builds').addColumn('changed_files', adapter.types.text).execute();
}

export const buildChangedFiles: Migration = {
  version: 19,
  name: 'the changed files paths conditions read',
  up,
};
