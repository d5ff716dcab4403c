import type { Kysely, Selectable } from 'kysely';
import type { Cron, CronStore, NewCron } from '../../core/cron.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { CronRow, Tables } from '../tables.js';
import { bool, changed, checkVersioned, flag, insertId, write } from './rows.js';

function toCron(row: Selectable<CronRow>): Cron {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    name: row.name,
    expr: row.expr,
    next: Number(row.next),
    prev: Number(row.prev),
    event: row.event,
    branch: row.branch,
    target: row.target,
    disabled: bool(row.disabled),
    created: Number(row.created),
    updated: Number(row.updated),
    version: Number(row.version),
  };
}

function columns(cron: NewCron) {
  return {
    repo_id: cron.repoId,
    name: cron.name,
    expr: cron.expr,
    next: cron.next,
    prev: cron.prev,
    event: cron.event,
    branch: cron.branch,
    target: cron.target,
    disabled: flag(cron.disabled),
  };
}

/** Cron jobs in the `crons` table. */
export class SqlCronStore implements CronStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(id: number): Promise<Cron | undefined> {
    const row = await this.#db.selectFrom('crons').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toCron(row);
  }

  async findName(repoId: number, name: string): Promise<Cron | undefined> {
    const row = await this.#db
      .selectFrom('crons')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toCron(row);
  }

  async list(repoId: number): Promise<Cron[]> {
    const rows = await this.#db
      .selectFrom('crons')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('name')
      .execute();
    return rows.map(toCron);
  }

  /** A job whose `next` is 0 has no run scheduled, so it is never ready. */
  async listReady(before: number): Promise<Cron[]> {
    const rows = await this.#db
      .selectFrom('crons')
      .selectAll()
      .where('disabled', '=', 0)
      .where('next', '>', 0)
      .where('next', '<=', before)
      .orderBy('next')
      .orderBy('id')
      .execute();
    return rows.map(toCron);
  }

  async create(cron: NewCron): Promise<Cron> {
    const now = Date.now();
    const values = { ...columns(cron), created: now, updated: now, version: 1 };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('crons').values(values)),
      {
        conflict: `cron job "${cron.name}" already exists in repository ${cron.repoId}`,
        missing: `repository ${cron.repoId}`,
      },
    );
    return { ...cron, id, created: now, updated: now, version: 1 };
  }

  async update(cron: Cron): Promise<Cron> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('crons')
          .set({ ...columns(cron), updated, version: cron.version + 1 })
          .where('id', '=', cron.id)
          .where('version', '=', cron.version)
          .executeTakeFirstOrThrow(),
      {
        conflict: `cron job "${cron.name}" already exists in repository ${cron.repoId}`,
        missing: `repository ${cron.repoId}`,
      },
    );
    await checkVersioned(changed(result), `cron job ${cron.id}`, cron.version, () => this.find(cron.id));
    return { ...cron, updated, version: cron.version + 1 };
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('crons').where('id', '=', id).execute();
  }
}
