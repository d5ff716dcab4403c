import type { Kysely, Selectable } from 'kysely';
import type { BuildRow, Tables } from '../tables.js';
import { groups } from './read-batch.js';

/**
 * The newest build (highest number) of each of the repositories that has one: one index lookup per
 * repository (`order by number desc limit 1` on the (repo_id, number) key), at most 500
 * repositories per statement. The same SQL on every dialect: no LATERAL (SQLite, MariaDB lack it).
 */
export async function newestRows(
  db: Kysely<Tables>,
  repoIds: readonly number[],
): Promise<Selectable<BuildRow>[]> {
  const rows: Selectable<BuildRow>[] = [];
  for (const group of groups(repoIds)) {
    const newest = await db
      .selectFrom((eb) =>
        eb
          .selectFrom('repos')
          .select((repos) =>
            repos
              .selectFrom('builds as newest')
              .select('newest.id')
              .whereRef('newest.repo_id', '=', 'repos.id')
              .orderBy('newest.number', 'desc')
              .limit(1)
              .as('id'),
          )
          .where('repos.id', 'in', group)
          .as('latest_ids'),
      )
      .innerJoin('builds', 'builds.id', 'latest_ids.id')
      .selectAll('builds')
      .execute();
    rows.push(...newest);
  }
  return rows;
}
