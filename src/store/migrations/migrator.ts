import type { Kysely } from 'kysely';
import { DatabaseError, SvcError } from '../../core/errors.js';
import type { DialectAdapter } from '../dialects/adapter.js';
import { describeError } from '../dialects/errors.js';
import type { Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { MIGRATIONS } from './index.js';
import { createTable, type Migration } from './migration.js';

/**
 * Brings the schema to the newest version this svc knows and returns that version. Each migration
 * runs in its own transaction with the row that records it (MySQL commits DDL implicitly, the others
 * roll a failed migration back whole). Must run under the adapter's migration lock.
 * A database at a newer version than the code knows is refused, and nothing is written.
 */
export async function migrate(
  db: Kysely<Tables>,
  adapter: DialectAdapter,
  log: (msg: string) => void,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number> {
  await createTable(
    untyped(db),
    adapter,
    'migrations',
    { version: 'int', name: 'text', applied: 'bigint' },
    { withId: false },
  )
    .ifNotExists()
    .addPrimaryKeyConstraint('migrations_pk', ['version'])
    .execute();
  const current = await currentVersion(db);
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) {
    throw new DatabaseError(
      'DATABASE_TOO_NEW',
      `the ${adapter.product} database ${adapter.target} was written by a newer svc (schema version ${current}, this svc knows up to version ${latest}): upgrade svc`,
    );
  }
  for (const migration of migrations.filter((m) => m.version > current)) {
    await inTransaction(db, async (trx) => {
      try {
        await migration.up(untyped(trx), adapter);
      } catch (error) {
        throw new SvcError(
          'INTERNAL',
          `migrating the ${adapter.product} database ${adapter.target} to version ${migration.version} (${migration.name}) failed: ${describeError(error)}`,
          { cause: error },
        );
      }
      await trx
        .insertInto('migrations')
        .values({ version: migration.version, name: migration.name, applied: Date.now() })
        .execute();
    });
    log(`database: migrated to schema version ${migration.version} (${migration.name})`);
  }
  return Math.max(current, latest);
}

/** The newest version recorded in the migrations table; 0 for a new database. */
export async function currentVersion(db: Kysely<Tables>): Promise<number> {
  const row = await db
    .selectFrom('migrations')
    .select((eb) => eb.fn.max('version').as('version'))
    .executeTakeFirst();
  return Number(row?.version ?? 0);
}

/** Migrations see the schema of their own time, not the tables the code knows now. */
function untyped(db: Kysely<Tables>): Kysely<unknown> {
  return db as unknown as Kysely<unknown>;
}
