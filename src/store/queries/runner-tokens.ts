import type { Kysely, Selectable } from 'kysely';
import type { RunnerToken, RunnerTokenStore } from '../../core/runner-token.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { RunnerTokenRow, Tables } from '../tables.js';
import { changed, insertId, write } from './rows.js';

function toToken(row: Selectable<RunnerTokenRow>): RunnerToken {
  return {
    id: Number(row.id),
    name: row.name,
    labels: JSON.parse(row.labels) as Record<string, string>,
    created: Number(row.created),
    lastUsed: Number(row.last_used),
    revoked: Number(row.revoked),
  };
}

/** Runner tokens in the `runner_tokens` table, by the SHA-256 of the token. */
export class SqlRunnerTokenStore implements RunnerTokenStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async create(token: {
    name: string;
    hash: string;
    labels: Readonly<Record<string, string>>;
  }): Promise<RunnerToken> {
    const now = Date.now();
    const values = {
      name: token.name,
      token_hash: token.hash,
      labels: JSON.stringify(token.labels),
      created: now,
      last_used: 0,
      revoked: 0,
    };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('runner_tokens').values(values)),
      { conflict: `a runner token named "${token.name}" exists (names are never used twice)` },
    );
    return { id, name: token.name, labels: { ...token.labels }, created: now, lastUsed: 0, revoked: 0 };
  }

  async findHash(hash: string): Promise<RunnerToken | undefined> {
    const row = await this.#db
      .selectFrom('runner_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    return row && toToken(row);
  }

  async findName(name: string): Promise<RunnerToken | undefined> {
    const row = await this.#db
      .selectFrom('runner_tokens')
      .selectAll()
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toToken(row);
  }

  async list(): Promise<RunnerToken[]> {
    const rows = await this.#db.selectFrom('runner_tokens').selectAll().orderBy('name').execute();
    return rows.map(toToken);
  }

  async revoke(name: string, now: number): Promise<boolean> {
    const result = await this.#db
      .updateTable('runner_tokens')
      .set({ revoked: now })
      .where('name', '=', name)
      .where('revoked', '=', 0)
      .executeTakeFirstOrThrow();
    return changed(result) > 0;
  }

  async touch(id: number, now: number): Promise<void> {
    await this.#db.updateTable('runner_tokens').set({ last_used: now }).where('id', '=', id).execute();
  }
}
