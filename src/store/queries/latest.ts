import type { Kysely, Selectable } from 'kysely';
import type { Build } from '../../core/build.js';
import { latestKeyOf, type LatestKind } from '../../core/latest.js';
import type { BuildRow, Tables } from '../tables.js';

/**
 * Makes a new build the head of its branch, pull request or deployment list (Drone's `latest`
 * table), inside the transaction that creates it. Delete-then-insert rather than an upsert: the same
 * statements on every dialect, and the creating transaction already holds the repository's row
 * (its counter), so two creations for one repository never interleave here.
 */
export async function indexLatest(
  trx: Kysely<Tables>,
  build: Pick<Build, 'id' | 'repoId' | 'event' | 'target' | 'ref' | 'deployTo'>,
  now: number,
  mysql: boolean,
): Promise<void> {
  const key = latestKeyOf(build);
  if (key === undefined) return;
  // One upsert, not a delete and an insert: on MySQL/MariaDB (repeatable read) deleting a key that
  // is not there locks the gap after it, and two builds of different repositories created at the
  // same time then wait for each other's gap to insert: a deadlock (found by the dispatch benchmark).
  const row = { repo_id: build.repoId, kind: key.kind, name: key.name, build_id: build.id, updated: now };
  const insert = trx.insertInto('latest').values(row);
  await (
    mysql
      ? insert.onDuplicateKeyUpdate({ build_id: build.id, updated: now })
      : insert.onConflict((conflict) =>
          conflict.columns(['repo_id', 'kind', 'name']).doUpdateSet({ build_id: build.id, updated: now }),
        )
  ).execute();
}

/** The builds heading a repository's list of one kind, newest first. */
export function latestRows(
  db: Kysely<Tables>,
  repoId: number,
  kind: LatestKind,
): Promise<Selectable<BuildRow>[]> {
  return db
    .selectFrom('latest')
    .innerJoin('builds', 'builds.id', 'latest.build_id')
    .selectAll('builds')
    .where('latest.repo_id', '=', repoId)
    .where('latest.kind', '=', kind)
    .orderBy('builds.number', 'desc')
    .execute();
}

export async function deleteLatest(
  db: Kysely<Tables>,
  repoId: number,
  kind: LatestKind,
  name: string,
): Promise<void> {
  await db
    .deleteFrom('latest')
    .where('repo_id', '=', repoId)
    .where('kind', '=', kind)
    .where('name', '=', name)
    .execute();
}
