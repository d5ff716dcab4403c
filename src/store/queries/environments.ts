import type { Kysely, Selectable } from 'kysely';
import type {
  Approval,
  ApprovalDecision,
  ApprovalStore,
  Approvers,
  Environment,
  EnvironmentStore,
  NewApproval,
  NewEnvironment,
  TeamRef,
} from '../../core/environment.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { ApprovalRow, EnvironmentRow, Tables } from '../tables.js';
import { changed, checkVersioned, insertId, write } from './rows.js';

/** The stored approvers; what does not read counts as nobody named (write access decides). */
function approversOf(text: string): Approvers {
  try {
    const value = JSON.parse(text) as { users?: unknown; teams?: unknown };
    const teams = Array.isArray(value.teams)
      ? (value.teams as Partial<Record<keyof TeamRef, unknown>>[])
      : [];
    return {
      users: Array.isArray(value.users) ? value.users.map(Number) : [],
      teams: teams.map((team) => ({ org: String(team.org), slug: String(team.slug), uid: String(team.uid) })),
    };
  } catch {
    return { users: [], teams: [] };
  }
}

function branchesOf(text: string): string[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

function toEnvironment(row: Selectable<EnvironmentRow>): Environment {
  return {
    id: Number(row.id),
    repoId: Number(row.repo_id),
    name: row.name,
    approvers: approversOf(row.approvers),
    required: Number(row.required),
    branches: branchesOf(row.branches),
    timeout: Number(row.timeout),
    created: Number(row.created),
    updated: Number(row.updated),
    version: Number(row.version),
  };
}

function columns(environment: NewEnvironment) {
  return {
    repo_id: environment.repoId,
    name: environment.name,
    approvers: JSON.stringify(environment.approvers),
    required: environment.required,
    branches: JSON.stringify(environment.branches),
    timeout: environment.timeout,
  };
}

/** Deployment environments in the `environments` table. */
export class SqlEnvironmentStore implements EnvironmentStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async list(repoId: number): Promise<Environment[]> {
    const rows = await this.#db
      .selectFrom('environments')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('name')
      .execute();
    return rows.map(toEnvironment);
  }

  async find(repoId: number, name: string): Promise<Environment | undefined> {
    const row = await this.#db
      .selectFrom('environments')
      .selectAll()
      .where('repo_id', '=', repoId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toEnvironment(row);
  }

  async #findId(id: number): Promise<Environment | undefined> {
    const row = await this.#db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toEnvironment(row);
  }

  async create(environment: NewEnvironment): Promise<Environment> {
    const now = Date.now();
    const values = { ...columns(environment), created: now, updated: now, version: 1 };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('environments').values(values)),
      {
        conflict: `environment "${environment.name}" already exists in repository ${environment.repoId}`,
        missing: `repository ${environment.repoId}`,
      },
    );
    return { ...environment, id, created: now, updated: now, version: 1 };
  }

  async update(environment: Environment): Promise<Environment> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('environments')
          .set({ ...columns(environment), updated, version: environment.version + 1 })
          .where('id', '=', environment.id)
          .where('version', '=', environment.version)
          .executeTakeFirstOrThrow(),
      { conflict: `environment "${environment.name}" already exists in repository ${environment.repoId}` },
    );
    await checkVersioned(changed(result), `environment ${environment.id}`, environment.version, () =>
      this.#findId(environment.id),
    );
    return { ...environment, updated, version: environment.version + 1 };
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('environments').where('id', '=', id).execute();
  }
}

function toApproval(row: Selectable<ApprovalRow>): Approval {
  return {
    id: Number(row.id),
    buildId: Number(row.build_id),
    stageId: Number(row.stage_id),
    stage: Number(row.stage),
    userId: Number(row.user_id),
    login: row.login,
    decision: row.decision as ApprovalDecision,
    comment: row.comment,
    created: Number(row.created),
  };
}

/** Approvals in the `approvals` table. */
export class SqlApprovalStore implements ApprovalStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async add(approval: NewApproval): Promise<Approval> {
    const values = {
      build_id: approval.buildId,
      stage_id: approval.stageId,
      stage: approval.stage,
      user_id: approval.userId,
      login: approval.login,
      decision: approval.decision,
      comment: approval.comment,
      created: approval.created,
    };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('approvals').values(values)),
      { missing: `build ${approval.buildId}` },
    );
    return { ...approval, id };
  }

  async list(buildId: number): Promise<Approval[]> {
    const rows = await this.#db
      .selectFrom('approvals')
      .selectAll()
      .where('build_id', '=', buildId)
      .orderBy('id')
      .execute();
    return rows.map(toApproval);
  }
}
