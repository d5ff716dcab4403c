import type { Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * `steps.attempts`: how many times a step ran — more than 1 after its `retry:` (issue 35). 0 for
 * every step stored before, and for steps of runners that do not say.
 */
async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('steps')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export const stepAttempts: Migration = {
  version: 18,
  name: 'the attempts of a step run again by retry',
  up,
};
