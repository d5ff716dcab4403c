import type { Kysely } from 'kysely';
import { isDone, STATUSES } from '../../core/status.js';
import type { Tables } from '../tables.js';

const DONE = STATUSES.filter(isDone);

/**
 * Ids of builds that are done, last changed before `before`, and not counted in the insight
 * rollups: those finished before the rollups existed, or whose count a dying server missed.
 * In id order from `afterId`, at most `limit`; a primary-key lookup in `insight_recorded` each.
 */
export async function uncountedBuilds(
  db: Kysely<Tables>,
  afterId: number,
  before: number,
  limit: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('builds')
    .select('builds.id')
    .where('builds.id', '>', afterId)
    .where('builds.status', 'in', DONE)
    .where('builds.updated', '<', before)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('insight_recorded')
            .select('insight_recorded.build_id')
            .whereRef('insight_recorded.build_id', '=', 'builds.id'),
        ),
      ),
    )
    .orderBy('builds.id')
    .limit(limit)
    .execute();
  return rows.map((row) => Number(row.id));
}
