import { sql, type Kysely } from 'kysely';
import type { DialectAdapter } from '../dialects/adapter.js';
import type { Migration } from './migration.js';

/**
 * Repository settings of Drone's API that the first schema lacked: the build `throttle` (running
 * builds at most, 0 = none), `cancel_running` (a new build cancels running builds of the same
 * branch), svc's `approval` policy (which builds wait for approval), and the repository's own key
 * for signing and encrypting pipeline files (`svc sign`, `svc encrypt`; empty until first used).
 */
async function up(db: Kysely<unknown>, adapter: DialectAdapter): Promise<void> {
  const columns: [string, 'integer' | typeof adapter.types.key, unknown][] = [
    ['throttle', 'integer', 0],
    ['cancel_running', 'integer', 0],
    ['approval', adapter.types.key, 'forks'],
    ['signing_key', adapter.types.key, ''],
  ];
  for (const [name, type, value] of columns) {
    await db.schema
      .alterTable('repos')
      .addColumn(name, type, (c) => c.notNull().defaultTo(typeof value === 'string' ? sql.lit(value) : value))
      .execute();
  }
}

export const repoSettings: Migration = {
  version: 5,
  name: 'repository throttle, auto-cancel, approval, key',
  up,
};
