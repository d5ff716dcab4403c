import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * The newest build of each branch, pull request and deployment target of a repository, as Drone's
 * `latest` table keeps it: written when a build is created, so `GET …/builds/branches|pulls|
 * deployments` read one row per name instead of grouping the whole build history, and a name can be
 * taken off those lists (`DELETE …/builds/branches/{branch}`) without deleting any build. Rows go
 * with their build (cascade) or their repository.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'latest',
    { repo_id: 'ref', kind: 'key', name: 'key', build_id: 'ref', updated: 'bigint' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('latest_pk', ['repo_id', 'kind', 'name'])
    .addForeignKeyConstraint('latest_repo_fk', ['repo_id'], 'repos', ['id'], (fk) => fk.onDelete('cascade'))
    .addForeignKeyConstraint('latest_build_fk', ['build_id'], 'builds', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
}

export const latestBuilds: Migration = {
  version: 7,
  name: 'latest build per branch, pull request and deployment',
  up,
};
