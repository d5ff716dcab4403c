import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * What several servers on one database need (docs/ha.md):
 * - `leases`: one row per job that only one server may run at a time (watchdog, reaper, cron), held
 *   by a server until `expires` (epoch ms) unless renewed;
 * - `cluster_signals`: on MySQL, where there is no LISTEN/NOTIFY, the signals servers send each
 *   other, polled by id and deleted after a minute (unused on PostgreSQL and SQLite).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'leases',
    { name: 'key', holder: 'key', expires: 'bigint' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('leases_pk', ['name'])
    .execute();
  await createTable(
    db,
    adapter,
    'cluster_signals',
    { origin: 'key', body: 'text', created: 'bigint' },
    { withId: true },
  ).execute();
  await db.schema.createIndex('cluster_signals_created').on('cluster_signals').column('created').execute();
}

export const cluster: Migration = { version: 8, name: 'leases and signals of several servers', up };
