import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { NewSecret, Secret, SecretScope, SecretStore } from '../../core/secret.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { SecretCipher } from '../encryption/cipher.js';
import { insertedColumns, openColumn, sealColumns } from '../encryption/columns.js';
import type { SecretRow, Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { bool, changed, flag, insertId, write } from './rows.js';

/** The scope as the (scope, scope_key, repo_id) columns. */
function scopeColumns(scope: SecretScope): { scope: string; scope_key: string; repo_id: number | null } {
  switch (scope.kind) {
    case 'repo':
      return { scope: 'repo', scope_key: String(scope.repoId), repo_id: scope.repoId };
    case 'namespace':
      return { scope: 'namespace', scope_key: scope.namespace, repo_id: null };
    case 'global':
      return { scope: 'global', scope_key: '', repo_id: null };
  }
}

function toScope(row: Selectable<SecretRow>): SecretScope {
  switch (row.scope) {
    case 'repo':
      return { kind: 'repo', repoId: Number(row.scope_key) };
    case 'namespace':
      return { kind: 'namespace', namespace: row.scope_key };
    default:
      return { kind: 'global' };
  }
}

/** The scope in words, for messages. */
function describeScope(scope: SecretScope): string {
  switch (scope.kind) {
    case 'repo':
      return `repository ${scope.repoId}`;
    case 'namespace':
      return `namespace "${scope.namespace}"`;
    case 'global':
      return 'the global scope';
  }
}

/** Secrets in the `secrets` table; values pass through the cipher chosen at open, bound to their row. */
export class SqlSecretStore implements SecretStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;
  readonly #cipher: SecretCipher;

  constructor({ db, adapter }: Connection, cipher: SecretCipher) {
    this.#db = db;
    this.#adapter = adapter;
    this.#cipher = cipher;
  }

  async find(id: number): Promise<Secret | undefined> {
    const row = await this.#db.selectFrom('secrets').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#toSecret(row);
  }

  async findName(scope: SecretScope, name: string): Promise<Secret | undefined> {
    const { scope: kind, scope_key } = scopeColumns(scope);
    const row = await this.#db
      .selectFrom('secrets')
      .selectAll()
      .where('scope', '=', kind)
      .where('scope_key', '=', scope_key)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && this.#toSecret(row);
  }

  async list(scope: SecretScope): Promise<Secret[]> {
    const { scope: kind, scope_key } = scopeColumns(scope);
    const rows = await this.#db
      .selectFrom('secrets')
      .selectAll()
      .where('scope', '=', kind)
      .where('scope_key', '=', scope_key)
      .orderBy('name')
      .execute();
    return rows.map((row) => this.#toSecret(row));
  }

  async listAll(kind: SecretScope['kind']): Promise<Secret[]> {
    const rows = await this.#db
      .selectFrom('secrets')
      .selectAll()
      .where('scope', '=', kind)
      .orderBy('scope_key')
      .orderBy('name')
      .execute();
    return rows.map((row) => this.#toSecret(row));
  }

  async create(secret: NewSecret): Promise<Secret> {
    const now = Date.now();
    const plain = { data: secret.data };
    const values = {
      ...this.#columns(secret),
      ...insertedColumns(this.#cipher, plain),
      created: now,
      updated: now,
    };
    const id = await write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          const id = await insertId(this.#adapter, trx.insertInto('secrets').values(values));
          if (this.#cipher.encrypted) {
            await trx
              .updateTable('secrets')
              .set(sealColumns(this.#cipher, 'secrets', id, plain))
              .where('id', '=', id)
              .execute();
          }
          return id;
        }),
      {
        conflict: `secret "${secret.name}" already exists in ${describeScope(secret.scope)}`,
        missing: describeScope(secret.scope),
      },
    );
    return { ...secret, id, created: now, updated: now };
  }

  async update(secret: Secret): Promise<Secret> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('secrets')
          .set({
            ...this.#columns(secret),
            ...sealColumns(this.#cipher, 'secrets', secret.id, { data: secret.data }),
            updated,
          })
          .where('id', '=', secret.id)
          .executeTakeFirstOrThrow(),
      {
        conflict: `secret "${secret.name}" already exists in ${describeScope(secret.scope)}`,
        missing: describeScope(secret.scope),
      },
    );
    if (changed(result) === 0) throw new NotFoundError(`secret ${secret.id}`);
    return { ...secret, updated };
  }

  async bindNamespace(id: number, namespaceUid: string): Promise<boolean> {
    if (namespaceUid === '') return false;
    const result = await this.#db
      .updateTable('secrets')
      .set({ namespace_uid: namespaceUid })
      .where('id', '=', id)
      .where('scope', '=', 'namespace')
      .where('namespace_uid', '=', '')
      .executeTakeFirstOrThrow();
    return changed(result) > 0;
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('secrets').where('id', '=', id).execute();
  }

  /** The columns a caller writes, the value aside. */
  #columns(secret: NewSecret) {
    return {
      ...scopeColumns(secret.scope),
      name: secret.name,
      pull_request: flag(secret.pullRequest),
      pull_request_push: flag(secret.pullRequestPush),
      namespace_uid: secret.scope.kind === 'namespace' ? secret.namespaceUid : '',
      environment: secret.environment,
    };
  }

  #toSecret(row: Selectable<SecretRow>): Secret {
    const id = Number(row.id);
    const data = openColumn(this.#cipher, { table: 'secrets', column: 'data', id }, row.data);
    return {
      id,
      scope: toScope(row),
      name: row.name,
      data,
      pullRequest: bool(row.pull_request),
      pullRequestPush: bool(row.pull_request_push),
      namespaceUid: row.namespace_uid,
      environment: row.environment,
      created: Number(row.created),
      updated: Number(row.updated),
    };
  }
}
