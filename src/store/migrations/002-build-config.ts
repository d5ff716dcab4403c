import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * The pipeline file each build was made from, kept with the build: runners get exactly the file the
 * build was linted and planned from, even after a restart or a force-push. Nullable because MySQL
 * cannot give a TEXT column a default; builds of version 1 read as an empty file.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await db.schema.alterTable('builds').addColumn('config', adapter.types.text).execute();
}

export const buildConfig: Migration = { version: 2, name: 'pipeline file of each build', up };
