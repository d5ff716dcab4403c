import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * The queue's own index: the stages no runner has taken, by id. The queue reads them oldest first,
 * a page at a time, on every request; with this (partial) index that read costs the same whatever
 * the history of finished stages and whatever the planner's statistics say. Without it PostgreSQL,
 * with statistics taken during a burst of queued stages, walks the primary key through every
 * finished stage on each read. MySQL and MariaDB have no partial indexes: there the index on
 * (status, id) of the first schema already serves the read (their planner measures the range).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  if (adapter.product === 'MySQL') return;
  await db.schema
    .createIndex('stages_queued_ix')
    .on('stages')
    .column('id')
    .where(sql.ref('status'), '=', 'pending')
    .where(sql.ref('machine'), '=', '')
    .execute();
}

export const queueIndex: Migration = { version: 4, name: 'index of the queued stages', up };
