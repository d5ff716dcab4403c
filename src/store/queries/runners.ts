import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { Runner, RunnerKind, RunnerRegistration, RunnerStore } from '../../core/runner.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { RunnerRow, Tables } from '../tables.js';
import { changed, insertId, parseMap, toJson } from './rows.js';

function toRunner(row: Selectable<RunnerRow>): Runner {
  return {
    id: Number(row.id),
    name: row.name,
    kind: row.kind as RunnerKind,
    type: row.type,
    labels: parseMap(row.labels, `runner ${row.name}`),
    capacity: Number(row.capacity),
    maxProcs: Number(row.max_procs),
    os: row.os,
    arch: row.arch,
    version: row.version,
    lastSeen: Number(row.last_seen),
    created: Number(row.created),
    updated: Number(row.updated),
  };
}

function columns(runner: RunnerRegistration) {
  return {
    kind: runner.kind,
    type: runner.type,
    labels: toJson(runner.labels),
    capacity: runner.capacity,
    max_procs: runner.maxProcs,
    os: runner.os,
    arch: runner.arch,
    version: runner.version,
    last_seen: runner.lastSeen,
  };
}

/** Runners in the `runners` table, known by name. */
export class SqlRunnerStore implements RunnerStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(id: number): Promise<Runner | undefined> {
    const row = await this.#db.selectFrom('runners').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toRunner(row);
  }

  async findName(name: string): Promise<Runner | undefined> {
    const row = await this.#db.selectFrom('runners').selectAll().where('name', '=', name).executeTakeFirst();
    return row && toRunner(row);
  }

  async list(): Promise<Runner[]> {
    return (await this.#db.selectFrom('runners').selectAll().orderBy('name').execute()).map(toRunner);
  }

  /**
   * Update by name, else insert; when a concurrent registration of the same name inserted first,
   * update again. Portable where ON CONFLICT / ON DUPLICATE KEY differ by dialect.
   */
  async register(runner: RunnerRegistration): Promise<Runner> {
    const now = Date.now();
    const update = async () =>
      changed(
        await this.#db
          .updateTable('runners')
          .set({ ...columns(runner), updated: now })
          .where('name', '=', runner.name)
          .executeTakeFirstOrThrow(),
      ) > 0;
    if (!(await update())) {
      try {
        const values = { ...columns(runner), name: runner.name, created: now, updated: now };
        const id = await insertId(this.#adapter, this.#db.insertInto('runners').values(values));
        return { ...runner, id, created: now, updated: now };
      } catch (error) {
        if (!this.#adapter.isUniqueViolation(error)) throw error;
        await update();
      }
    }
    const stored = await this.findName(runner.name);
    // Deleted by someone else in between.
    if (stored === undefined) throw new NotFoundError(`runner "${runner.name}"`);
    return stored;
  }

  async touch(id: number, lastSeen: number): Promise<void> {
    const result = await this.#db
      .updateTable('runners')
      .set({ last_seen: lastSeen })
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    if (changed(result) === 0) throw new NotFoundError(`runner ${id}`);
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('runners').where('id', '=', id).execute();
  }
}
