import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * `logs.batches`: how many of the step's `log_batches` rows (numbered 0 … batches − 1) come first in
 * its finished log, before the lines its own parts hold. A step run by an svc runner finishes with
 * its batches kept where they are instead of copied into the log (LogStore.createFromBatches): each
 * line is written once. 0 — every log stored before, and every log stored whole — is a log held by
 * its own parts alone, as before.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('logs')
    .addColumn('batches', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export const logKeptBatches: Migration = {
  version: 10,
  name: 'finished logs made of their log batches',
  up,
};
