import type { Kysely } from 'kysely';
import type { RecentBuild } from '../../core/build.js';
import type { Status } from '../../core/status.js';
import type { Tables } from '../tables.js';
import { groups } from './read-batch.js';

/**
 * The last `count` builds of each of the repositories, newest first, keyed by repository id; those
 * without builds are left out. One statement per 500 repositories, the same SQL on every dialect.
 *
 * Rather than numbering every build of a repository (ROW_NUMBER() over the whole partition reads
 * all of a repository's builds on SQLite and MariaDB, tens of thousands on a busy one), each
 * repository's `count`-th newest number is looked up first: `order by number desc limit 1 offset
 * count - 1` on the (repo_id, number) key reads `count` index entries. The builds numbered from it
 * up are then exactly the newest `count` (numbers are unique per repository, even with deleted
 * builds in between); a repository with fewer builds has no such number and gives all of them.
 */
export async function recentRows(
  db: Kysely<Tables>,
  repoIds: readonly number[],
  count: number,
): Promise<Map<number, RecentBuild[]>> {
  const recent = new Map<number, RecentBuild[]>();
  for (const group of groups(repoIds)) {
    const rows = await db
      .selectFrom((eb) =>
        eb
          .selectFrom('repos')
          .select('repos.id as repo_id')
          .select((repos) =>
            repos
              .selectFrom('builds as floor')
              .select('floor.number')
              .whereRef('floor.repo_id', '=', 'repos.id')
              .orderBy('floor.number', 'desc')
              .limit(1)
              .offset(count - 1)
              .as('lowest'),
          )
          .where('repos.id', 'in', group)
          .as('floors'),
      )
      .innerJoin('builds', 'builds.repo_id', 'floors.repo_id')
      .select(['builds.repo_id', 'builds.number', 'builds.status', 'builds.started', 'builds.finished'])
      .where((eb) => eb('builds.number', '>=', eb.fn.coalesce('floors.lowest', eb.lit(0))))
      .orderBy('builds.repo_id')
      .orderBy('builds.number', 'desc')
      .execute();
    for (const row of rows) {
      const repoId = Number(row.repo_id);
      const builds = recent.get(repoId) ?? [];
      builds.push({
        number: Number(row.number),
        status: row.status as Status,
        started: Number(row.started),
        finished: Number(row.finished),
      });
      recent.set(repoId, builds);
    }
  }
  return recent;
}
