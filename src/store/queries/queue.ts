import { sql, type Kysely, type Selectable } from 'kysely';
import type { BuildEvent } from '../../core/build.js';
import type { QueuedStage, QueueStore } from '../../core/queue.js';
import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { RepoRow, StageRow, Tables } from '../tables.js';
import { Prepared } from './prepared.js';
import { bool, changed } from './rows.js';
import { toStage } from './stages.js';

/** A stage a runner holds: accepted and not started yet, or running. */
const TAKEN: Status[] = ['pending', 'running'];

/** The `meta` row of the queue's pause switch (migration 6). */
const PAUSED = 'queue_paused';

/** A stage with the facts of its repository and build (SqlQueueStore's read). */
type QueueRow = Selectable<StageRow> & {
  repo_slug: string;
  repo_trusted: Selectable<RepoRow>['trusted'];
  repo_throttle: number;
  build_event: string;
};

/** What the prepared accept takes. */
interface TakeValues extends Record<string, unknown> {
  id: number;
  machine: string;
  at: number;
  updated: number;
}

/** A pipeline: its repository and name. */
function pipeline(repoId: number, name: string): string {
  return `${repoId}/${name}`;
}

/** The queue's reads and the runners' heartbeats, over the `stages` table. */
export class SqlQueueStore implements QueueStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  /** The accept of a runner, built and compiled once (see Prepared). */
  readonly #take: Prepared<TakeValues, Selectable<StageRow>>;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
    this.#take = new Prepared(db, (v: TakeValues) => {
      const update = db
        .updateTable('stages')
        .set((eb) => ({
          machine: v.machine,
          heartbeat: v.at,
          updated: v.updated,
          version: eb('version', '+', 1),
        }))
        .where('id', '=', v.id)
        .where('status', '=', 'pending')
        .where('machine', '=', '')
        .where('limit', '=', 0);
      return adapter.supportsReturning ? update.returningAll() : update;
    });
  }

  /**
   * The queued stages, oldest first; with `page`, only those with an id above `page.after`, at most
   * `page.limit` of them (the queue reads itself a page at a time). `active` is counted only for
   * stages with a concurrency limit (it is 0 for the others, which do not need it), and `running`
   * only for repositories with a throttle, each by one more query when the page has such stages: a
   * count in the read itself would make PostgreSQL estimate every read as expensive (and compile it
   * to machine code first, ~10 ms each).
   */
  async listQueued(page?: { after: number; limit: number }): Promise<QueuedStage[]> {
    let query = this.#select()
      // Literal values: they match the partial index of the queue (migration 4) whatever the planner.
      .where('stages.status', '=', sql.lit('pending'))
      .where('stages.machine', '=', sql.lit(''))
      .orderBy('stages.id');
    if (page !== undefined) query = query.where('stages.id', '>', page.after).limit(page.limit);
    return this.#withCounts(await query.execute());
  }

  async listIncomplete(): Promise<QueuedStage[]> {
    const rows = await this.#select().where('stages.status', 'in', TAKEN).orderBy('stages.id').execute();
    return this.#withCounts(rows);
  }

  /** Stages joined with the facts runner filters, `limit` and `throttle` need. */
  #select() {
    return this.#db
      .selectFrom('stages')
      .innerJoin('builds', 'builds.id', 'stages.build_id')
      .innerJoin('repos', 'repos.id', 'stages.repo_id')
      .selectAll('stages')
      .select([
        'repos.slug as repo_slug',
        'repos.trusted as repo_trusted',
        'repos.throttle as repo_throttle',
        'builds.event as build_event',
      ]);
  }

  async #withCounts(rows: readonly QueueRow[]): Promise<QueuedStage[]> {
    const stages = rows.map(toStage);
    const queued = stages.filter((stage) => stage.status === 'pending' && stage.machine === '');
    const throttled = new Set(
      rows
        .filter((row) => row.status === 'pending' && row.machine === '' && Number(row.repo_throttle) > 0)
        .map((row) => Number(row.repo_id)),
    );
    const [active, running] = await Promise.all([
      this.#active(queued.filter((stage) => stage.limit > 0)),
      this.#runningBuilds([...throttled]),
    ]);
    return rows.map((row, i): QueuedStage => {
      const stage = stages[i] as Stage;
      const builds = running.get(stage.repoId);
      return {
        stage,
        repo: { slug: row.repo_slug, trusted: bool(row.repo_trusted), throttle: Number(row.repo_throttle) },
        build: { event: row.build_event as BuildEvent },
        active: stage.limit > 0 ? (active.get(pipeline(stage.repoId, stage.name)) ?? 0) : 0,
        running: { builds: builds?.size ?? 0, thisBuild: builds?.has(stage.buildId) ?? false },
      };
    });
  }

  /** How many stages of the pipelines (repository and name) of `stages` runners have taken and not finished. */
  async #active(stages: readonly Stage[]): Promise<Map<string, number>> {
    if (stages.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('stages')
      .select(['repo_id', 'name'])
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('repo_id', 'in', [...new Set(stages.map((s) => s.repoId))])
      .where('name', 'in', [...new Set(stages.map((s) => s.name))])
      .where((w) =>
        w.or([w('status', '=', 'running'), w.and([w('status', '=', 'pending'), w('machine', '<>', '')])]),
      )
      .groupBy(['repo_id', 'name'])
      .execute();
    return new Map(rows.map((row) => [pipeline(Number(row.repo_id), row.name), Number(row.n)]));
  }

  /** Per repository of `repoIds`, its builds of which runners have taken a stage and not finished it. */
  async #runningBuilds(repoIds: readonly number[]): Promise<Map<number, Set<number>>> {
    const running = new Map<number, Set<number>>();
    if (repoIds.length === 0) return running;
    const rows = await this.#db
      .selectFrom('stages')
      .select(['repo_id', 'build_id'])
      .distinct()
      .where('repo_id', 'in', repoIds)
      .where((w) =>
        w.or([w('status', '=', 'running'), w.and([w('status', '=', 'pending'), w('machine', '<>', '')])]),
      )
      .execute();
    for (const row of rows) {
      const repo = Number(row.repo_id);
      const builds = running.get(repo) ?? new Set<number>();
      builds.add(Number(row.build_id));
      running.set(repo, builds);
    }
    return running;
  }

  async takenBy(): Promise<Map<string, number>> {
    const rows = await this.#db
      .selectFrom('stages')
      .select('machine')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('status', 'in', TAKEN)
      .where('machine', '<>', '')
      .groupBy('machine')
      .execute();
    return new Map(rows.map((row) => [row.machine, Number(row.n)]));
  }

  async pausedSince(): Promise<number> {
    const row = await this.#db
      .selectFrom('meta')
      .select('value')
      .where('name', '=', PAUSED)
      .executeTakeFirst();
    return Number(row?.value ?? 0) || 0;
  }

  async setPaused(at: number): Promise<void> {
    await this.#db
      .updateTable('meta')
      .set({ value: String(Math.max(0, Math.trunc(at))) })
      .where('name', '=', PAUSED)
      .execute();
  }

  /**
   * One statement where UPDATE … RETURNING works (the accept of a runner, at the busiest); MySQL
   * reads the stage after its update.
   */
  async take(stageId: number, machine: string, at: number): Promise<Stage | undefined> {
    const result = await this.#take.execute({ id: stageId, machine, at, updated: Date.now() });
    if (this.#adapter.supportsReturning) {
      const row = result.rows[0];
      return row && toStage(row);
    }
    if (Number(result.numAffectedRows ?? 0) !== 1) return undefined;
    const row = await this.#db.selectFrom('stages').selectAll().where('id', '=', stageId).executeTakeFirst();
    return row && toStage(row);
  }

  async takeLimited(
    stageId: number,
    machine: string,
    at: number,
  ): Promise<{ stage: Stage } | { active: number } | undefined> {
    // SQLite has no row locks, and needs none: svc keeps it to one server, whose writes it serializes.
    const rowLocks = this.#adapter.product !== 'SQLite';
    // Read committed (MySQL's default is repeatable read): the count after the lock must see the
    // takes committed while this transaction waited for it, not a snapshot from before.
    const transaction = rowLocks
      ? this.#db.transaction().setIsolationLevel('read committed')
      : this.#db.transaction();
    return transaction.execute(async (trx) => {
      const seen = await trx
        .selectFrom('stages')
        .select(['repo_id', 'name', 'limit'])
        .where('id', '=', stageId)
        .executeTakeFirst();
      if (seen === undefined) return undefined;
      // Every limited take of the repository waits here for the one under way: its count then sees it.
      if (rowLocks) {
        await trx.selectFrom('repos').select('id').where('id', '=', seen.repo_id).forUpdate().execute();
      }
      let read = trx
        .selectFrom('stages')
        .selectAll()
        .where('id', '=', stageId)
        .where('status', '=', 'pending')
        .where('machine', '=', '');
      if (rowLocks) read = read.forUpdate().skipLocked();
      const row = await read.executeTakeFirst();
      if (row === undefined) return undefined;
      const count = await trx
        .selectFrom('stages')
        .select((eb) => eb.fn.countAll<number>().as('active'))
        .where('repo_id', '=', row.repo_id)
        .where('name', '=', row.name)
        .where('status', 'in', TAKEN)
        .where('machine', '<>', '')
        .executeTakeFirst();
      const active = Number(count?.active ?? 0);
      if (active >= Number(row.limit)) return { active };
      await trx
        .updateTable('stages')
        .set((eb) => ({ machine, heartbeat: at, updated: Date.now(), version: eb('version', '+', 1) }))
        .where('id', '=', stageId)
        .execute();
      const taken = await trx
        .selectFrom('stages')
        .selectAll()
        .where('id', '=', stageId)
        .executeTakeFirstOrThrow();
      return { stage: toStage(taken) };
    });
  }

  async requeue(stageId: number, machine: string, version: number): Promise<Stage | undefined> {
    const update = this.#db
      .updateTable('stages')
      .set((eb) => ({ machine: '', heartbeat: 0, updated: Date.now(), version: eb('version', '+', 1) }))
      .where('id', '=', stageId)
      .where('status', '=', 'pending')
      .where('machine', '=', machine)
      .where('machine', '<>', '')
      .where('version', '=', version);
    if (this.#adapter.supportsReturning) {
      const row = await update.returningAll().executeTakeFirst();
      return row && toStage(row);
    }
    if (changed(await update.executeTakeFirst()) !== 1) return undefined;
    const row = await this.#db.selectFrom('stages').selectAll().where('id', '=', stageId).executeTakeFirst();
    return row && toStage(row);
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

  async beatStages(stageIds: readonly number[], at: number): Promise<number> {
    if (stageIds.length === 0) return 0;
    const result = await this.#db
      .updateTable('stages')
      .set({ heartbeat: at })
      .where('id', 'in', [...stageIds])
      .where('status', 'in', TAKEN)
      .where('machine', '<>', '')
      .executeTakeFirst();
    return changed(result);
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
