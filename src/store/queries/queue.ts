import type { Kysely } from 'kysely';
import type { BuildEvent } from '../../core/build.js';
import type { QueuedStage, QueueStore } from '../../core/queue.js';
import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import type { Connection } from '../dialects/adapter.js';
import type { Tables } from '../tables.js';
import { bool, changed } from './rows.js';
import { toStage } from './stages.js';

/** A stage a runner holds: accepted and not started yet, or running. */
const TAKEN: Status[] = ['pending', 'running'];

/** The queue's reads and the runners' heartbeats, over the `stages` table. */
export class SqlQueueStore implements QueueStore {
  readonly #db: Kysely<Tables>;

  constructor({ db }: Connection) {
    this.#db = db;
  }

  async listQueued(): Promise<QueuedStage[]> {
    const rows = await this.#db
      .selectFrom('stages')
      .innerJoin('builds', 'builds.id', 'stages.build_id')
      .innerJoin('repos', 'repos.id', 'stages.repo_id')
      .selectAll('stages')
      .select(['repos.slug as repo_slug', 'repos.trusted as repo_trusted', 'builds.event as build_event'])
      .select((eb) =>
        eb
          .selectFrom('stages as other')
          .select((sub) => sub.fn.countAll<number | string | bigint>().as('n'))
          .whereRef('other.repo_id', '=', 'stages.repo_id')
          .whereRef('other.name', '=', 'stages.name')
          .where((w) =>
            w.or([
              w('other.status', '=', 'running'),
              w.and([w('other.status', '=', 'pending'), w('other.machine', '<>', '')]),
            ]),
          )
          .as('active'),
      )
      .where('stages.status', '=', 'pending')
      .where('stages.machine', '=', '')
      .orderBy('stages.id')
      .execute();
    return rows.map((row) => ({
      stage: toStage(row),
      repo: { slug: row.repo_slug, trusted: bool(row.repo_trusted) },
      build: { event: row.build_event as BuildEvent },
      active: Number(row.active ?? 0),
    }));
  }

  async beat(stageId: number, at: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('stages')
      .set({ heartbeat: at })
      .where('id', '=', stageId)
      .where('status', 'in', TAKEN)
      .where('machine', '<>', '')
      .executeTakeFirst();
    return changed(result) === 1;
  }

  async listStale(before: number): Promise<Stage[]> {
    const rows = await this.#db
      .selectFrom('stages')
      .selectAll()
      .where('status', 'in', TAKEN)
      .where('machine', '<>', '')
      .where('heartbeat', '<', before)
      .orderBy('id')
      .execute();
    return rows.map(toStage);
  }
}
