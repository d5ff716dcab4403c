import { sql, type Kysely, type Selectable } from 'kysely';
import type { NewStage, Stage, StageEnd, StageStore, StageWithSteps } from '../../core/stage.js';
import { isDone, STATUSES, type Status } from '../../core/status.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { StageRow, Tables } from '../tables.js';
import { bool, changed, checkVersioned, flag, parseList, parseMap, toJson, write } from './rows.js';
import { ReadBatch } from './read-batch.js';
import { toStep } from './steps.js';

/** The statuses of a stage that is not done. */
const OPEN: Status[] = STATUSES.filter((status) => !isDone(status));

/** A stage row as the domain type. */
export function toStage(row: Selectable<StageRow>): Stage {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    buildId: Number(row.build_id),
    number: Number(row.number),
    name: row.name,
    kind: row.kind,
    type: row.type,
    status: row.status as Status,
    error: row.error,
    errIgnore: bool(row.err_ignore),
    exitCode: Number(row.exit_code),
    machine: row.machine,
    os: row.os,
    arch: row.arch,
    variant: row.variant,
    kernel: row.kernel,
    limit: Number(row.limit),
    started: Number(row.started),
    stopped: Number(row.stopped),
    heartbeat: Number(row.heartbeat),
    created: Number(row.created),
    updated: Number(row.updated),
    version: Number(row.version),
    onSuccess: bool(row.on_success),
    onFailure: bool(row.on_failure),
    dependsOn: parseList(row.depends_on, `stage ${row.id}`),
    labels: parseMap(row.labels, `stage ${row.id}`),
  };
}

/** The columns of a stage that a caller writes (not its repository, build or creation time). */
export function stageColumns(stage: Omit<NewStage, 'repoId' | 'buildId'>) {
  return {
    number: stage.number,
    name: stage.name,
    kind: stage.kind,
    type: stage.type,
    status: stage.status,
    error: stage.error,
    err_ignore: flag(stage.errIgnore),
    exit_code: stage.exitCode,
    machine: stage.machine,
    os: stage.os,
    arch: stage.arch,
    variant: stage.variant,
    kernel: stage.kernel,
    limit: stage.limit,
    started: stage.started,
    stopped: stage.stopped,
    heartbeat: stage.heartbeat,
    on_success: flag(stage.onSuccess),
    on_failure: flag(stage.onFailure),
    depends_on: toJson(stage.dependsOn),
    labels: toJson(stage.labels),
  };
}

/** Stages in the `stages` table; they are created with their build (SqlBuildStore.create). */
export class SqlStageStore implements StageStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  /**
   * Finds and lists asked for at the same time (concurrent runner requests) are read with one
   * query each: the queue's busiest reads, by primary key and by build.
   */
  readonly #byId = new ReadBatch<number, Stage>(async (ids) => {
    const rows = await this.#db.selectFrom('stages').selectAll().where('id', 'in', ids).execute();
    return new Map(rows.map((row) => [Number(row.id), toStage(row)]));
  });

  readonly #byBuild = new ReadBatch<number, Stage[]>(async (buildIds) => {
    const rows = await this.#db
      .selectFrom('stages')
      .selectAll()
      .where('build_id', 'in', buildIds)
      .orderBy('build_id')
      .orderBy('number')
      .execute();
    return Map.groupBy(rows.map(toStage), (stage) => stage.buildId);
  });

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  find(id: number): Promise<Stage | undefined> {
    return this.#byId.get(id);
  }

  async findNumber(buildId: number, number: number): Promise<Stage | undefined> {
    const row = await this.#db
      .selectFrom('stages')
      .selectAll()
      .where('build_id', '=', buildId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row && toStage(row);
  }

  async list(buildId: number): Promise<Stage[]> {
    return (await this.#byBuild.get(buildId)) ?? [];
  }

  async listWithSteps(buildId: number): Promise<StageWithSteps[]> {
    const stages = await this.list(buildId);
    const steps = await this.#db
      .selectFrom('steps')
      .innerJoin('stages', 'stages.id', 'steps.stage_id')
      .selectAll('steps')
      .where('stages.build_id', '=', buildId)
      .orderBy('steps.stage_id')
      .orderBy('steps.number')
      .execute();
    const byStage = Map.groupBy(steps.map(toStep), (step) => step.stageId);
    return stages.map((stage) => ({ ...stage, steps: byStage.get(stage.id) ?? [] }));
  }

  async listStatus(status: Status): Promise<Stage[]> {
    const rows = await this.#db
      .selectFrom('stages')
      .selectAll()
      .where('status', '=', status)
      .orderBy('id')
      .execute();
    return rows.map(toStage);
  }

  async update(stage: Stage): Promise<Stage> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('stages')
          .set({ ...stageColumns(stage), updated, version: stage.version + 1 })
          .where('id', '=', stage.id)
          .where('version', '=', stage.version)
          .executeTakeFirstOrThrow(),
      { conflict: `build ${stage.buildId} already has a stage number ${stage.number}` },
    );
    await checkVersioned(changed(result), `stage ${stage.id}`, stage.version, () => this.find(stage.id));
    return { ...stage, updated, version: stage.version + 1 };
  }

  /** One statement where UPDATE … RETURNING works; MySQL reads the stage after its update. */
  async end(id: number, version: number, end: StageEnd): Promise<Stage | undefined> {
    const update = this.#db
      .updateTable('stages')
      .set((eb) => ({
        status: end.status,
        error: end.error,
        exit_code: end.exitCode,
        // A reported start, else the stored one, else now (a bigint column: no parameter in the test).
        started:
          end.started !== 0
            ? end.started
            : sql<number>`case when started = 0 then ${end.at} else started end`,
        stopped: end.stopped,
        heartbeat: end.at,
        updated: Date.now(),
        version: eb('version', '+', 1),
      }))
      .where('id', '=', id)
      .where('version', '=', version)
      .where('status', 'in', OPEN)
      .where('machine', '<>', '');
    if (this.#adapter.supportsReturning) {
      const row = await update.returningAll().executeTakeFirst();
      return row && toStage(row);
    }
    if (changed(await update.executeTakeFirstOrThrow()) !== 1) return undefined;
    return this.find(id);
  }
}
