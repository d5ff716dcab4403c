import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `status_outbox`: commit statuses the git provider did not take (down, rate-limited), kept until a
 * later attempt posts them, so that a provider outage or a server restart loses no build's final
 * status. One row per repository, commit and status context: a newer state replaces an unsent older
 * one. Rows go with their repository or build (cascade); `next_attempt` orders the retry loop's scan.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'status_outbox',
    {
      repo_id: 'ref',
      build_id: 'ref',
      commit_sha: 'key',
      context: 'key',
      state: 'key',
      description: 'text',
      target_url: 'text',
      ref: 'text',
      attempts: 'int',
      next_attempt: 'bigint',
      last_error: 'text',
      created: 'bigint',
    },
    { withId: true },
  )
    .addUniqueConstraint('status_outbox_key_uq', ['repo_id', 'commit_sha', 'context'])
    .addForeignKeyConstraint('status_outbox_repo_fk', ['repo_id'], 'repos', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .addForeignKeyConstraint('status_outbox_build_fk', ['build_id'], 'builds', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('status_outbox_due_ix').on('status_outbox').column('next_attempt').execute();
}

export const statusOutbox: Migration = { version: 9, name: 'commit statuses to post again', up };
