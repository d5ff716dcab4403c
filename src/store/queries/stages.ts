import { sql, type Kysely, type Selectable } from 'kysely';
import type { StageDeployment } from '../../core/environment.js';
import type { NewStage, Stage, StageEnd, StageStore, StageWithSteps } from '../../core/stage.js';
import { isDone, STATUSES, type Status } from '../../core/status.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { StageRow, Tables } from '../tables.js';
import { bool, checkVersioned, flag, parseList, parseMap, toJson, write } from './rows.js';
import { Prepared } from './prepared.js';
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
    ...deploymentOf(row.deployment),
  };
}

/** The stored deployment; a value that does not read is left out rather than failing the build's page. */
function deploymentOf(text: string | null): Pick<Stage, 'deployment'> {
  if (text === null || text === '') return {};
  try {
    const value = JSON.parse(text) as Partial<StageDeployment>;
    return {
      deployment: {
        environment: String(value.environment ?? ''),
        required: Number(value.required ?? 0),
        approved: value.approved === true,
        deadline: Number(value.deadline ?? 0),
      },
    };
  } catch {
    return {};
  }
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
    deployment: stage.deployment === undefined ? null : JSON.stringify(stage.deployment),
  };
}

type StageColumns = ReturnType<typeof stageColumns>;

/** The names of stageColumns (complete: the type checks it), for the prepared update. */
const STAGE_COLUMNS = Object.keys({
  number: true,
  name: true,
  kind: true,
  type: true,
  status: true,
  error: true,
  err_ignore: true,
  exit_code: true,
  machine: true,
  os: true,
  arch: true,
  variant: true,
  kernel: true,
  limit: true,
  started: true,
  stopped: true,
  heartbeat: true,
  on_success: true,
  on_failure: true,
  depends_on: true,
  labels: true,
  deployment: true,
} satisfies Record<keyof StageColumns, true>) as (keyof StageColumns)[];

/** What the prepared writes of a runner's final report take (StageStore.end). */
interface EndValues extends Record<string, unknown> {
  id: number;
  version: number;
  status: Status;
  error: string;
  exitCode: number;
  started: number;
  stopped: number;
  at: number;
  updated: number;
  /** The runner that must hold the stage ('' = any runner: `machine` set). */
  holder: string;
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

  /** The runner protocol's writes of a stage, built and compiled once (see Prepared). */
  readonly #update: Prepared<StageColumns & { id: number; version: number; updated: number }, unknown>;
  /** The final report with the start it reports, and without one (the stored start is kept). */
  /** The final report's write: by whether it sets `started`, and whether it names the holder. */
  readonly #end: Prepared<EndValues, Selectable<StageRow>>;
  readonly #endKeepingStart: Prepared<EndValues, Selectable<StageRow>>;
  readonly #endByHolder: Prepared<EndValues, Selectable<StageRow>>;
  readonly #endKeepingStartByHolder: Prepared<EndValues, Selectable<StageRow>>;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
    this.#update = new Prepared(db, (v) =>
      db
        .updateTable('stages')
        .set({
          ...Object.fromEntries(STAGE_COLUMNS.map((column) => [column, v[column]])),
          updated: v.updated,
          version: (eb) => eb('version', '+', 1),
        })
        .where('id', '=', v.id)
        .where('version', '=', v.version),
    );
    const given = (v: EndValues) => v.started;
    // A bigint column compared in the SQL, not a parameter: PostgreSQL would type that as int4.
    const kept = (v: EndValues) => sql<number>`case when started = 0 then ${v.at} else started end`;
    this.#end = this.#prepareEnd(given, false);
    this.#endKeepingStart = this.#prepareEnd(kept, false);
    this.#endByHolder = this.#prepareEnd(given, true);
    this.#endKeepingStartByHolder = this.#prepareEnd(kept, true);
  }

  #prepareEnd(
    started: (v: EndValues) => unknown,
    byHolder: boolean,
  ): Prepared<EndValues, Selectable<StageRow>> {
    const db = this.#db;
    const returning = this.#adapter.supportsReturning;
    return new Prepared(db, (v: EndValues) => {
      const update = db
        .updateTable('stages')
        .set((eb) => ({
          status: v.status,
          error: v.error,
          exit_code: v.exitCode,
          started: started(v) as number,
          stopped: v.stopped,
          heartbeat: v.at,
          updated: v.updated,
          version: eb('version', '+', 1),
        }))
        .where('id', '=', v.id)
        .where('version', '=', v.version)
        .where('status', 'in', OPEN)
        .where('machine', '<>', '')
        .$if(byHolder, (query) => query.where('machine', '=', v.holder));
      return returning ? update.returningAll() : update;
    });
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
      () => this.#update.execute({ ...stageColumns(stage), id: stage.id, version: stage.version, updated }),
      { conflict: `build ${stage.buildId} already has a stage number ${stage.number}` },
    );
    await checkVersioned(Number(result.numAffectedRows ?? 0), `stage ${stage.id}`, stage.version, () =>
      this.find(stage.id),
    );
    return { ...stage, updated, version: stage.version + 1 };
  }

  /** One statement where UPDATE … RETURNING works; MySQL reads the stage after its update. */
  async end(id: number, version: number, end: StageEnd, holder = ''): Promise<Stage | undefined> {
    const prepared =
      holder === ''
        ? end.started !== 0
          ? this.#end
          : this.#endKeepingStart
        : end.started !== 0
          ? this.#endByHolder
          : this.#endKeepingStartByHolder;
    const result = await prepared.execute({ ...end, id, version, holder, updated: Date.now() });
    if (this.#adapter.supportsReturning) {
      const row = result.rows[0];
      return row && toStage(row);
    }
    return Number(result.numAffectedRows ?? 0) === 1 ? this.find(id) : undefined;
  }
}
