import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * The queue's pause switch (`DELETE /api/queue` pauses, `POST /api/queue` resumes), as a row of
 * `meta`: in the database, so that it survives a restart and holds for every server sharing the
 * database. The row is created here, so that pausing and resuming are one plain UPDATE on every
 * dialect (no dialect-specific upsert). The value is the epoch milliseconds of the pause, `0` when
 * the queue runs.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await (db as Kysely<{ meta: { name: string; value: string } }>)
    .insertInto('meta')
    .values({ name: 'queue_paused', value: '0' })
    .execute();
}

export const queuePause: Migration = { version: 6, name: 'queue pause switch', up };
