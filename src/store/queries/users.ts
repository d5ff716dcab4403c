import type { Kysely, Selectable } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { NewUser, User, UserStore } from '../../core/user.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { Tables, UserRow } from '../tables.js';
import { bool, changed, flag, insertId, write } from './rows.js';

function toUser(row: Selectable<UserRow>): User {
  return {
    id: Number(row.id),
    login: row.login,
    email: row.email,
    avatar: row.avatar,
    machine: bool(row.machine),
    admin: bool(row.admin),
    active: bool(row.active),
    token: row.token,
    scmToken: row.scm_token,
    scmRefresh: row.scm_refresh,
    scmExpiry: Number(row.scm_expiry),
    scmUid: row.scm_uid ?? '',
    sessionGen: Number(row.session_gen),
    lastLogin: Number(row.last_login),
    created: Number(row.created),
    updated: Number(row.updated),
  };
}

function columns(user: NewUser) {
  return {
    login: user.login,
    email: user.email,
    avatar: user.avatar,
    machine: flag(user.machine),
    admin: flag(user.admin),
    active: flag(user.active),
    token: user.token,
    scm_token: user.scmToken,
    scm_refresh: user.scmRefresh,
    scm_expiry: user.scmExpiry,
    scm_uid: user.scmUid === '' ? null : user.scmUid,
    last_login: user.lastLogin,
  };
}

/** Users in the `users` table. */
export class SqlUserStore implements UserStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;

  constructor({ db, adapter }: Connection) {
    this.#db = db;
    this.#adapter = adapter;
  }

  async find(id: number): Promise<User | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async findLogin(login: string): Promise<User | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('login', '=', login).executeTakeFirst();
    return row && toUser(row);
  }

  async findScmUid(uid: string): Promise<User | undefined> {
    if (uid === '') return undefined;
    const row = await this.#db.selectFrom('users').selectAll().where('scm_uid', '=', uid).executeTakeFirst();
    return row && toUser(row);
  }

  async findToken(token: string): Promise<User | undefined> {
    const row = await this.#db.selectFrom('users').selectAll().where('token', '=', token).executeTakeFirst();
    return row && toUser(row);
  }

  async list(): Promise<User[]> {
    const rows = await this.#db.selectFrom('users').selectAll().orderBy('login').execute();
    return rows.map(toUser);
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
    const values = { ...columns(user), created: now, updated: now };
    const id = await write(
      this.#adapter,
      () => insertId(this.#adapter, this.#db.insertInto('users').values(values)),
      {
        conflict: () => this.#collision(user, undefined),
      },
    );
    return { ...user, id, sessionGen: 0, created: now, updated: now };
  }

  async update(user: User): Promise<User> {
    const updated = Date.now();
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('users')
          .set({ ...columns(user), updated })
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
    const result = await this.#db
      .updateTable('users')
      .set({
        scm_token: fresh.token,
        scm_refresh: fresh.refresh,
        scm_expiry: fresh.expiry,
        updated: Date.now(),
      })
      .where('scm_token', '=', oldToken)
      .executeTakeFirstOrThrow();
    return changed(result);
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
}
