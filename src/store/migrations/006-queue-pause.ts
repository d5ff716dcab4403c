import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * What the queue administration and "why is this stage pending?" need:
 * - the queue's pause switch (`DELETE /api/queue` pauses, `POST /api/queue` resumes), as a row of
 *   `meta`: in the database, so that it survives a restart and holds for every server sharing the
 *   database. The row is created here, so that pausing and resuming are one plain UPDATE on every
 *   dialect (no dialect-specific upsert). Its value is the epoch milliseconds of the pause, `0`
 *   while the queue runs;
 * - the pipeline `type` a runner polls for (`docker`, `kubernetes`, `ssh`, …), which the first
 *   schema's runners table lacked, to tell whether any runner could take a stage.
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await (db as Kysely<{ meta: { name: string; value: string } }>)
    .insertInto('meta')
    .values({ name: 'queue_paused', value: '0' })
    .execute();
  await db.schema
    .alterTable('runners')
    .addColumn('type', adapter.types.key, (c) => c.notNull().defaultTo(sql.lit('docker')))
    .execute();
}

export const queuePause: Migration = { version: 6, name: 'queue pause switch, runner type', up };
