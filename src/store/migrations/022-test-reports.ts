import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * Test reports (issue 36, TestReportStore):
 * - `test_cases`: a repository's tests, one row per suite and name; `name_hash` (SHA-256 of suite
 *   NUL name, hex) is what the unique index holds, since names can be longer than an index key.
 *   They go with their repository (cascade).
 * - `test_results`: each run of a test in a step's attempt; they go with their build (cascade).
 *   Indexes: (build_id, id) lists a build's; (case_id, id) a test's history, newest first;
 *   (case_id, commit) the results of a test on one commit (the flaky rule); (step_id, attempt) the
 *   results an upload replaces.
 * - `test_quarantine`: every quarantine and lift of a test, with who and why.
 * - `test_settings`: a repository's choices about its tests (quarantine is opt-in), one row per
 *   repository that made one.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'test_cases',
    {
      repo_id: 'ref',
      name_hash: 'key',
      suite: 'text',
      name: 'text',
      quarantined: 'flag',
      flaky_seen: 'bigint',
      created: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('test_cases_repo_hash_uq', ['repo_id', 'name_hash'])
    .addForeignKeyConstraint('test_cases_repo_fk', ['repo_id'], 'repos', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('test_cases_flaky_ix')
    .on('test_cases')
    .columns(['repo_id', 'flaky_seen'])
    .execute();
  await createTable(
    db,
    adapter,
    'test_results',
    {
      case_id: 'ref',
      repo_id: 'ref',
      build_id: 'ref',
      stage_id: 'ref',
      step_id: 'ref',
      attempt: 'int',
      status: 'key',
      duration_ms: 'bigint',
      message: 'text',
      output: 'text',
      file: 'text',
      is_new: 'flag',
      quarantined: 'flag',
      superseded: 'flag',
      commit_sha: 'key',
      created: 'bigint',
    },
    { withId: true },
  )
    .addForeignKeyConstraint('test_results_build_fk', ['build_id'], 'builds', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint('test_results_case_fk', ['case_id'], 'test_cases', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  const indexes: [string, string[]][] = [
    ['test_results_build_ix', ['build_id', 'id']],
    ['test_results_case_ix', ['case_id', 'id']],
    ['test_results_commit_ix', ['case_id', 'commit_sha']],
    ['test_results_step_ix', ['step_id', 'attempt']],
  ];
  for (const [name, columns] of indexes)
    await db.schema.createIndex(name).on('test_results').columns(columns).execute();
  await createTable(
    db,
    adapter,
    'test_quarantine',
    {
      case_id: 'ref',
      repo_id: 'ref',
      quarantined: 'flag',
      user_id: 'bigint',
      login: 'key',
      comment: 'text',
      created: 'bigint',
    },
    { withId: true },
  )
    .addForeignKeyConstraint('test_quarantine_case_fk', ['case_id'], 'test_cases', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await createTable(
    db,
    adapter,
    'test_settings',
    { repo_id: 'ref', quarantine: 'flag', updated: 'bigint', login: 'key' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('test_settings_pk', ['repo_id'])
    .addForeignKeyConstraint('test_settings_repo_fk', ['repo_id'], 'repos', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('test_quarantine_case_ix')
    .on('test_quarantine')
    .columns(['case_id', 'id'])
    .execute();
}

export const testReports: Migration = { version: 22, name: 'test reports', up };
