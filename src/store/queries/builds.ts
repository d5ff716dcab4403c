import type { Kysely, Selectable } from 'kysely';
import type {
  Build,
  BuildChangedFiles,
  BuildEvent,
  BuildFilter,
  BuildStore,
  NewBuild,
  NewStageWithSteps,
  Page,
  RecentBuild,
} from '../../core/build.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import type { LatestKind } from '../../core/latest.js';
import type { Stage } from '../../core/stage.js';
import { isDone, STATUSES, type Status } from '../../core/status.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { BuildRow, Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { deleteLatest, indexLatest, latestRows } from './latest.js';
import { newestRows } from './newest.js';
import { ReadBatch } from './read-batch.js';
import { recentRows } from './recent.js';
import { bool, changed, checkVersioned, flag, insertId, parseMap, toJson, write } from './rows.js';
import { stageColumns } from './stages.js';
import { insertStep } from './steps.js';

const INCOMPLETE: Status[] = STATUSES.filter((status) => !isDone(status));

/** The stored `changed_files`; a value that does not read is left out rather than failing the build's page. */
function changedFilesOf(text: string | null): Pick<Build, 'changedFiles'> {
  if (text === null || text === '') return {};
  try {
    const value = JSON.parse(text) as Partial<BuildChangedFiles>;
    return {
      changedFiles: {
        ...(Array.isArray(value.files) ? { files: value.files.map(String) } : {}),
        ...(typeof value.unknown === 'string' ? { unknown: value.unknown } : {}),
        skipped: Array.isArray(value.skipped) ? value.skipped.map(String) : [],
      },
    };
  } catch {
    return {};
  }
}

function toBuild(row: Selectable<BuildRow>): Build {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    number: Number(row.number),
    parent: Number(row.parent),
    status: row.status as Status,
    error: row.error,
    event: row.event as BuildEvent,
    action: row.action,
    trigger: row.trigger,
    link: row.link,
    title: row.title,
    message: row.message,
    before: row.before,
    after: row.after,
    ref: row.ref,
    sourceRepo: row.source_repo,
    source: row.source,
    target: row.target,
    authorLogin: row.author_login,
    authorName: row.author_name,
    authorEmail: row.author_email,
    authorAvatar: row.author_avatar,
    sender: row.sender,
    params: parseMap(row.params, `build ${row.id}`),
    cron: row.cron,
    deployTo: row.deploy_to,
    config: row.config ?? '',
    ...changedFilesOf(row.changed_files),
    deployId: Number(row.deploy_id),
    debug: bool(row.debug),
    started: Number(row.started),
    finished: Number(row.finished),
    created: Number(row.created),
    updated: Number(row.updated),
    version: Number(row.version),
  };
}

/** The columns a caller writes (not the repository, number or creation time). */
export function buildColumns(build: NewBuild) {
  return {
    parent: build.parent,
    status: build.status,
    error: build.error,
    event: build.event,
    action: build.action,
    trigger: build.trigger,
    link: build.link,
    title: build.title,
    message: build.message,
    before: build.before,
    after: build.after,
    ref: build.ref,
    source_repo: build.sourceRepo,
    source: build.source,
    target: build.target,
    author_login: build.authorLogin,
    author_name: build.authorName,
    author_email: build.authorEmail,
    author_avatar: build.authorAvatar,
    sender: build.sender,
    params: toJson(build.params),
    cron: build.cron,
    deploy_to: build.deployTo,
    config: build.config,
    changed_files: build.changedFiles === undefined ? null : JSON.stringify(build.changedFiles),
    deploy_id: build.deployId,
    debug: flag(build.debug),
    started: build.started,
    finished: build.finished,
  };
}

/** Builds in the `builds` table; creation also writes their stages and steps. */
export class SqlBuildStore implements BuildStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  /**
   * Finds asked for at the same time are read with one query: every stage report settles its
   * build, which reads it.
   */
  readonly #byId = new ReadBatch<number, Build>(async (ids) => {
    const rows = await this.#db.selectFrom('builds').selectAll().where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [Number(row.id), toBuild(row)]));
  });

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  find(id: number): Promise<Build | undefined> {
    return this.#byId.get(id);
  }

  async findNumber(repoId: number, number: number): Promise<Build | undefined> {
    const row = await this.#db
      .selectFrom('builds')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row && toBuild(row);
  }

  async newestOf(repoIds: readonly number[]): Promise<Map<number, Build>> {
    const rows = await newestRows(this.#db, [...new Set(repoIds)]);
    return new Map(rows.map((row) => [Number(row.repo_id), toBuild(row)]));
  }

  async recentOf(repoIds: readonly number[], count: number): Promise<Map<number, RecentBuild[]>> {
    if (!Number.isInteger(count) || count < 1) {
      throw new InvalidInputError(`${count} recent builds: the count must be a whole number of at least 1`);
    }
    return recentRows(this.#db, [...new Set(repoIds)], count);
  }

  async list(repoId: number, { page, perPage }: Page, filter: BuildFilter = {}): Promise<Build[]> {
    if (!Number.isInteger(page) || page < 1 || !Number.isInteger(perPage) || perPage < 1) {
      throw new InvalidInputError(
        `page ${page} of ${perPage} builds: both must be whole numbers of at least 1`,
      );
    }
    const rows = await this.#db
      .selectFrom('builds')
      .selectAll()
      .where('repo_id', '=', repoId)
      .$if(filter.ref !== undefined, (query) => query.where('ref', '=', filter.ref ?? ''))
      .orderBy('number', 'desc')
      .limit(perPage)
      .offset((page - 1) * perPage)
      .execute();
    return rows.map(toBuild);
  }

  async findLatest(repoId: number, which: { branch?: string; ref?: string }): Promise<Build | undefined> {
    const ref = which.branch !== undefined ? `refs/heads/${which.branch}` : which.ref;
    let query = this.#db.selectFrom('builds').selectAll().where('repo_id', '=', repoId);
    if (ref !== undefined) query = query.where('ref', '=', ref);
    const row = await query.orderBy('number', 'desc').limit(1).executeTakeFirst();
    return row && toBuild(row);
  }

  async listRecent(userId: number, limit: number): Promise<Build[]> {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidInputError(`${limit} recent builds: the limit must be a whole number of at least 1`);
    }
    const rows = await this.#db
      .selectFrom('builds')
      .innerJoin('perms', 'perms.repo_id', 'builds.repo_id')
      .selectAll('builds')
      .where('perms.user_id', '=', userId)
      .where((eb) => eb.or([eb('perms.read', '=', 1), eb('perms.write', '=', 1), eb('perms.admin', '=', 1)]))
      .orderBy('builds.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toBuild);
  }

  async listLatest(repoId: number, kind: LatestKind): Promise<Build[]> {
    return (await latestRows(this.#db, repoId, kind)).map(toBuild);
  }

  deleteLatest(repoId: number, kind: LatestKind, name: string): Promise<void> {
    return deleteLatest(this.#db, repoId, kind, name);
  }

  async listIncomplete(): Promise<Build[]> {
    const rows = await this.#db
      .selectFrom('builds')
      .selectAll()
      .where('status', 'in', INCOMPLETE)
      .orderBy('id')
      .execute();
    return rows.map(toBuild);
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('builds')
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /**
   * Takes the next number by incrementing the repository's counter first: the UPDATE locks the
   * repository row (or, on SQLite, the write transaction locks the file), so concurrent creations
   * queue behind each other and each reads its own number.
   */
  create(build: NewBuild, stages: NewStageWithSteps[]): Promise<{ build: Build; stages: Stage[] }> {
    return inTransaction(this.#db, async (trx) => {
      const now = Date.now();
      const bumped = await trx
        .updateTable('repos')
        .set((eb) => ({ counter: eb('counter', '+', 1) }))
        .where('id', '=', build.repoId)
        .executeTakeFirstOrThrow();
      if (changed(bumped) === 0) throw new NotFoundError(`repository ${build.repoId}`);
      const repo = await trx
        .selectFrom('repos')
        .select('counter')
        .where('id', '=', build.repoId)
        .executeTakeFirstOrThrow();
      const number = Number(repo.counter);
      const values = {
        ...buildColumns(build),
        repo_id: build.repoId,
        number,
        created: now,
        updated: now,
        version: 1,
      };
      const id = await write(
        this.#adapter,
        () => insertId(this.#adapter, trx.insertInto('builds').values(values)),
        {
          conflict: `repository ${build.repoId} already has a build number ${number}`,
        },
      );
      const created: Stage[] = [];
      for (const { stage, steps } of stages) {
        const stageValues = {
          ...stageColumns(stage),
          repo_id: build.repoId,
          build_id: id,
          created: now,
          updated: now,
        };
        const stageId = await write(
          this.#adapter,
          () => insertId(this.#adapter, trx.insertInto('stages').values({ ...stageValues, version: 1 })),
          { conflict: `build ${number} of repository ${build.repoId} has two stages number ${stage.number}` },
        );
        for (const step of steps) await insertStep(trx, this.#adapter, { ...step, stageId });
        created.push({
          ...stage,
          id: stageId,
          repoId: build.repoId,
          buildId: id,
          created: now,
          updated: now,
          version: 1,
        });
      }
      await indexLatest(trx, { ...build, id }, now, this.#adapter.product === 'MySQL');
      return { build: { ...build, id, number, created: now, updated: now, version: 1 }, stages: created };
    });
  }

  async update(build: Build): Promise<Build> {
    const updated = Date.now();
    const result = await this.#db
      .updateTable('builds')
      .set({ ...buildColumns(build), updated, version: build.version + 1 })
      .where('id', '=', build.id)
      .where('version', '=', build.version)
      .executeTakeFirstOrThrow();
    await checkVersioned(changed(result), `build ${build.id}`, build.version, () => this.find(build.id));
    return { ...build, updated, version: build.version + 1 };
  }

  async delete(id: number): Promise<void> {
    // Foreign keys cascade to the stages, their steps and the steps' logs; the artifacts' rows stay
    // until their blobs are deleted (ArtifactStore.ofPurgedBuilds).
    await this.#db.deleteFrom('builds').where('id', '=', id).execute();
  }

  async purge(repoId: number, before: number): Promise<{ builds: number; steps: number[] }> {
    // The steps first: their logs may live outside the database too (an object store).
    const steps = await this.#db
      .selectFrom('steps')
      .innerJoin('stages', 'stages.id', 'steps.stage_id')
      .innerJoin('builds', 'builds.id', 'stages.build_id')
      .select('steps.id')
      .where('builds.repo_id', '=', repoId)
      .where('builds.number', '<', before)
      .where('builds.status', 'not in', INCOMPLETE)
      .execute();
    // Foreign keys cascade to the stages, their steps and the steps' logs; artifacts stay, as in delete.
    const result = await this.#db
      .deleteFrom('builds')
      .where('repo_id', '=', repoId)
      .where('number', '<', before)
      .where('status', 'not in', INCOMPLETE)
      .executeTakeFirst();
    return { builds: Number(result.numDeletedRows), steps: steps.map((step) => Number(step.id)) };
  }
}
