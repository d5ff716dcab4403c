import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * Deployment environments and approvals (issue 35):
 * - `environments`: a repository's environments; `approvers` and `branches` are JSON; unique per
 *   repository and name; they go with their repository.
 * - `approvals`: every decision on a stage waiting for approval, with its build (cascade).
 * - `stages.deployment`: the environment a stage deploys to and its approval state, as JSON; null
 *   for stages that deploy nowhere (every stage before).
 * - `secrets.environment`: a secret only builds deploying to that environment receive; empty for
 *   every secret before (they reach every build, as ever).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'environments',
    {
      repo_id: 'ref',
      name: 'key',
      approvers: 'text',
      required: 'int',
      branches: 'text',
      timeout: 'int',
      created: 'bigint',
      updated: 'bigint',
      version: 'int',
    },
    { withId: true },
  )
    .addUniqueConstraint('environments_repo_name_uq', ['repo_id', 'name'])
    .addForeignKeyConstraint('environments_repo_fk', ['repo_id'], 'repos', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await createTable(
    db,
    adapter,
    'approvals',
    {
      build_id: 'ref',
      stage_id: 'ref',
      stage: 'int',
      user_id: 'bigint',
      login: 'key',
      decision: 'key',
      comment: 'text',
      created: 'bigint',
    },
    { withId: true },
  )
    .addForeignKeyConstraint('approvals_build_fk', ['build_id'], 'builds', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('approvals_build_ix').on('approvals').column('build_id').execute();
  await db.schema.alterTable('stages').addColumn('deployment', adapter.types.text).execute();
  await db.schema
    .alterTable('secrets')
    .addColumn('environment', adapter.types.key, (c) => c.notNull().defaultTo(sql.lit('')))
    .execute();
}

export const environments: Migration = {
  version: 20,
  name: 'deployment environments and approvals',
  up,
};
