import type { Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import { createTable, type Migration } from './migration.js';

/**
 * `hook_deliveries`: the keys of the webhook deliveries taken in the last week (HookDeliveryStore),
 * one row per repository and key. The primary key is what makes a repeated delivery lose on every
 * dialect and across servers: the second INSERT of a key violates it, whoever sends it. `created`
 * orders the periodic pruning; rows go with their repository (cascade).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  await createTable(
    db,
    adapter,
    'hook_deliveries',
    { repo_id: 'ref', delivery: 'key', created: 'bigint' },
    { withId: false },
  )
    .addPrimaryKeyConstraint('hook_deliveries_pk', ['repo_id', 'delivery'])
    .addForeignKeyConstraint('hook_deliveries_repo_fk', ['repo_id'], 'repos', ['id'], (fk) =>
      fk.onDelete('cascade'),
    )
    .execute();
  await db.schema.createIndex('hook_deliveries_created_ix').on('hook_deliveries').column('created').execute();
}

export const hookDeliveries: Migration = { version: 13, name: 'webhook deliveries taken', up };
