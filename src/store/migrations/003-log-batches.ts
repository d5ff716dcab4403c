import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * The log lines of running steps, one row per numbered batch a runner sent: a batch is
 * acknowledged only once it is in this table, so a server killed at any moment loses no
 * acknowledged line. The primary key is what drops a batch a runner sends twice. Rows go when the
 * step's final log is stored, or with the step (cascade).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'log_batches',
    { step_id: 'ref', batch: 'int', data: 'blob', created: 'bigint' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('log_batches_pk', ['step_id', 'batch'])
    .addForeignKeyConstraint('log_batches_step_fk', ['step_id'], 'steps', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
}

export const logBatches: Migration = { version: 3, name: 'log batches of running steps', up };
