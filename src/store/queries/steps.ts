import type { Kysely, Selectable } from 'kysely';
import type { Status } from '../../core/status.js';
import type { NewStep, Step, StepStore } from '../../core/step.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { StepRow, Tables } from '../tables.js';
import { ReadBatch } from './read-batch.js';
import { bool, changed, checkVersioned, flag, insertId, parseList, toJson, write } from './rows.js';

/** A step row as the domain type. */
export function toStep(row: Selectable<StepRow>): Step {
  return {
    id: Number(row.id),
    stageId: Number(row.stage_id),
    number: Number(row.number),
    name: row.name,
    status: row.status as Status,
    error: row.error,
    errIgnore: bool(row.err_ignore),
    exitCode: Number(row.exit_code),
    image: row.image,
    detached: bool(row.detached),
    dependsOn: parseList(row.depends_on, `step ${row.id}`),
    started: Number(row.started),
    stopped: Number(row.stopped),
    attempts: Number(row.attempts),
    version: Number(row.version),
  };
}

/** The columns of a step, for insert and update. */
export function stepColumns(step: NewStep) {
  return {
    stage_id: step.stageId,
    number: step.number,
    name: step.name,
    status: step.status,
    error: step.error,
    err_ignore: flag(step.errIgnore),
    exit_code: step.exitCode,
    image: step.image,
    detached: flag(step.detached),
    depends_on: toJson(step.dependsOn),
    started: step.started,
    stopped: step.stopped,
    attempts: step.attempts ?? 0,
  };
}

/** Inserts a step at version 1 (also used by BuildStore.create inside its transaction). */
export async function insertStep(db: Kysely<Tables>, adapter: DialectAdapter, step: NewStep): Promise<Step> {
  const id = await write(
    adapter,
    () => insertId(adapter, db.insertInto('steps').values({ ...stepColumns(step), version: 1 })),
    {
      conflict: `stage ${step.stageId} already has a step number ${step.number}`,
      missing: `stage ${step.stageId}`,
    },
  );
  return { ...step, attempts: step.attempts ?? 0, id, version: 1 };
}

/** Steps in the `steps` table. */
export class SqlStepStore implements StepStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  /**
   * Lists asked for at the same time (runners reporting their stages concurrently) are read with
   * one query: every report of a stage reads its steps.
   */
  readonly #byStage = new ReadBatch<number, Step[]>(async (stageIds) => {
    const rows = await this.#db
      .selectFrom('steps')
      .selectAll()
      .where('stage_id', 'in', stageIds)
      .orderBy('stage_id')
      .orderBy('number')
      .execute();
    return Map.groupBy(rows.map(toStep), (step) => step.stageId);
  });

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(id: number): Promise<Step | undefined> {
    const row = await this.#db.selectFrom('steps').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toStep(row);
  }

  async findNumber(stageId: number, number: number): Promise<Step | undefined> {
    const row = await this.#db
      .selectFrom('steps')
      .selectAll()
      .where('stage_id', '=', stageId)
      .where('number', '=', number)
      .executeTakeFirst();
    return row && toStep(row);
  }

  async list(stageId: number): Promise<Step[]> {
    return (await this.#byStage.get(stageId)) ?? [];
  }

  create(step: NewStep): Promise<Step> {
    return insertStep(this.#db, this.#adapter, step);
  }

  async update(step: Step): Promise<Step> {
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('steps')
          .set({ ...stepColumns(step), version: step.version + 1 })
          .where('id', '=', step.id)
          .where('version', '=', step.version)
          .executeTakeFirstOrThrow(),
      {
        conflict: `stage ${step.stageId} already has a step number ${step.number}`,
        missing: `stage ${step.stageId}`,
      },
    );
    await checkVersioned(changed(result), `step ${step.id}`, step.version, () => this.find(step.id));
    return { ...step, version: step.version + 1 };
  }
}
