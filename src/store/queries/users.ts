import { createHash } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { NewUser, User, UserStore } from '../../core/user.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { SecretCipher } from '../encryption/cipher.js';
import { insertedColumns, openColumn, sealColumns } from '../encryption/columns.js';
import type { Tables, UserRow } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { bool, changed, flag, insertId, write } from './rows.js';

/** The fingerprint refreshes find a provider token by (see the migration to version 12). */
function fingerprint(scmToken: string): string {
  return scmToken === '' ? '' : createHash('sha256').update(scmToken, 'utf8').digest('hex');
}

/** The columns a caller writes, credentials aside. */
function columns(user: NewUser) {
  return {
    login: user.login,
    email: user.email,
    avatar: user.avatar,
    machine: flag(user.machine),
    admin: flag(user.admin),
    active: flag(user.active),
    token_hash: user.tokenHash,
    scm_token_hash: fingerprint(user.scmToken),
    scm_expiry: user.scmExpiry,
    scm_uid: user.scmUid === '' ? null : user.scmUid,
    last_login: user.lastLogin,
  };
}

/** The provider credentials, plain; stored through the cipher, bound to the row. */
function credentials(user: Pick<NewUser, 'scmToken' | 'scmRefresh'>) {
  return { scm_token: user.scmToken, scm_refresh: user.scmRefresh };
}

/**
 * Users in the `users` table: API tokens by their hash; provider credentials through the cipher
 * chosen at open, bound to the row.
 */
export class SqlUserStore implements UserStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;
  readonly #cipher: SecretCipher;

  constructor({ db, adapter }: Connection, cipher: SecretCipher) {
    this.#db = db;
    this.#adapter = adapter;
    this.#cipher = cipher;
  }

  async find(id: number): Promise<User | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#toUser(row);
  }

  async findLogin(login: string): Promise<User | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
    return row && this.#toUser(row);
  }

  async findScmUid(uid: string): Promise<User | undefined> {
    if (uid === '') return undefined;
    const row = await this.#db.selectFrom('users').selectAll().where('scm_uid', '=', uid).executeTakeFirst();
    return row && this.#toUser(row);
  }

  async findTokenHash(hash: string): Promise<User | undefined> {
    const row = await this.#db
      .selectFrom('users')
      .selectAll()
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    return row && this.#toUser(row);
  }

  async list(): Promise<User[]> {
    const rows = await this.#db.selectFrom('users').selectAll().orderBy('login').execute();
    return rows.map((row) => this.#toUser(row));
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async create(user: NewUser): Promise<User> {
    const now = Date.now();
    const plain = credentials(user);
    const values = { ...columns(user), ...insertedColumns(this.#cipher, plain), created: now, updated: now };
    const id = await write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          const id = await insertId(this.#adapter, trx.insertInto('users').values(values));
          if (this.#cipher.encrypted) {
            await trx
              .updateTable('users')
              .set(sealColumns(this.#cipher, 'users', id, plain))
              .where('id', '=', id)
              .execute();
          }
          return id;
        }),
      { conflict: () => this.#collision(user, undefined) },
    );
    return { ...user, id, sessionGen: 0, created: now, updated: now };
  }

  async update(user: User): Promise<User> {
    const updated = Date.now();
    const sealed = sealColumns(this.#cipher, 'users', user.id, credentials(user));
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('users')
          .set({ ...columns(user), ...sealed, updated })
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow(),
      { conflict: () => this.#collision(user, user.id) },
    );
    if (changed(result) === 0) throw new NotFoundError(`user ${user.id}`);
    return { ...user, updated };
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('users').where('id', '=', id).execute();
  }

  async endSessions(id: number): Promise<void> {
    await this.#db
      .updateTable('users')
      .set((eb) => ({ session_gen: eb('session_gen', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async replaceScmToken(
    oldToken: string,
    fresh: { token: string; refresh: string; expiry: number },
  ): Promise<number> {
    if (oldToken === '') return 0;
    // The token is stored encrypted with a fresh nonce each time, and bound to its row: it is
    // found by its fingerprint, and each row is replaced only while it still holds that one.
    const old = fingerprint(oldToken);
    const holders = await this.#db
      .selectFrom('users')
      .select('id')
      .where('scm_token_hash', '=', old)
      .execute();
    let replaced = 0;
    for (const holder of holders) {
      const id = Number(holder.id);
      const plain = { scmToken: fresh.token, scmRefresh: fresh.refresh };
      const result = await this.#db
        .updateTable('users')
        .set({
          ...sealColumns(this.#cipher, 'users', id, credentials(plain)),
          scm_token_hash: fingerprint(fresh.token),
          scm_expiry: fresh.expiry,
          updated: Date.now(),
        })
        .where('id', '=', id)
        .where('scm_token_hash', '=', old)
        .executeTakeFirstOrThrow();
      replaced += changed(result);
    }
    return replaced;
  }

  /** Which unique column a write of the user (`self`: its id, when it exists) collided on. */
  async #collision(user: NewUser, self: number | undefined): Promise<string> {
    const holder = await this.findLogin(user.login);
    if (holder !== undefined && holder.id !== self) return `user "${user.login}" already exists`;
    const same = await this.findScmUid(user.scmUid);
    if (same !== undefined && same.id !== self)
      return `user "${same.login}" already belongs to the provider's account ${user.scmUid}`;
    return `another user already has the token of user "${user.login}"`;
  }

  #toUser(row: Selectable<UserRow>): User {
    const id = Number(row.id);
    const open = (column: 'scm_token' | 'scm_refresh') =>
      openColumn(this.#cipher, { table: 'users', column, id }, row[column]);
    return {
      id,
      login: row.login,
      email: row.email,
      avatar: row.avatar,
      machine: bool(row.machine),
      admin: bool(row.admin),
      active: bool(row.active),
      tokenHash: row.token_hash,
      scmToken: open('scm_token'),
      scmRefresh: open('scm_refresh'),
      scmExpiry: Number(row.scm_expiry),
      scmUid: row.scm_uid ?? '',
      sessionGen: Number(row.session_gen),
      lastLogin: Number(row.last_login),
      created: Number(row.created),
      updated: Number(row.updated),
    };
  }
}
