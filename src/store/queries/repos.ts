import type { Kysely, Selectable } from 'kysely';
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  type NewRepo,
  type Repo,
  type RepoStore,
  type RepoWithPerm,
  type Visibility,
} from '../../core/repo.js';
import type { Connection, DialectAdapter } from '../dialects/adapter.js';
import type { SecretCipher } from '../encryption/cipher.js';
import { insertedColumns, openColumn, sealColumns } from '../encryption/columns.js';
import type { RepoRow, Tables } from '../tables.js';
import { inTransaction } from '../transaction.js';
import { toPerm } from './perms.js';
import { bool, changed, checkVersioned, flag, insertId, write } from './rows.js';

function approvalOf(value: string): ApprovalPolicy {
  return (APPROVAL_POLICIES as readonly string[]).includes(value) ? (value as ApprovalPolicy) : 'forks';
}

/** A row as a repository; its credentials through the cipher, bound to the row. */
function toRepo(cipher: SecretCipher, row: Selectable<RepoRow>): Repo {
  const id = Number(row.id);
  const open = (column: 'signing_key' | 'hook_secret') =>
    openColumn(cipher, { table: 'repos', column, id }, row[column]);
  return {
    id,
    uid: row.uid,
    userId: Number(row.user_id),
    namespace: row.namespace,
    name: row.name,
    slug: row.slug,
    scm: row.scm,
    cloneUrl: row.clone_url,
    cloneUrlSsh: row.clone_url_ssh,
    link: row.link,
    defaultBranch: row.default_branch,
    private: bool(row.private),
    visibility: row.visibility as Visibility,
    active: bool(row.active),
    configPath: row.config_path,
    trusted: bool(row.trusted),
    protected: bool(row.protected),
    ignoreForks: bool(row.ignore_forks),
    ignorePullRequests: bool(row.ignore_pull_requests),
    cancelPulls: bool(row.cancel_pulls),
    cancelPush: bool(row.cancel_push),
    cancelRunning: bool(row.cancel_running),
    forkIdTokens: bool(row.fork_id_tokens),
    throttle: Number(row.throttle),
    approval: approvalOf(row.approval),
    signingKey: open('signing_key'),
    namespaceUid: row.namespace_uid,
    timeout: Number(row.timeout),
    counter: Number(row.counter),
    hookSecret: open('hook_secret'),
    synced: Number(row.synced),
    created: Number(row.created),
    updated: Number(row.updated),
    version: Number(row.version),
  };
}

/**
 * The columns a caller writes, credentials aside; `counter` is not one of them (BuildStore.create
 * hands out numbers).
 */
function columns(repo: NewRepo) {
  return {
    uid: repo.uid,
    user_id: repo.userId,
    namespace: repo.namespace,
    name: repo.name,
    slug: repo.slug,
    scm: repo.scm,
    clone_url: repo.cloneUrl,
    clone_url_ssh: repo.cloneUrlSsh,
    link: repo.link,
    default_branch: repo.defaultBranch,
    private: flag(repo.private),
    visibility: repo.visibility,
    active: flag(repo.active),
    config_path: repo.configPath,
    trusted: flag(repo.trusted),
    protected: flag(repo.protected),
    ignore_forks: flag(repo.ignoreForks),
    ignore_pull_requests: flag(repo.ignorePullRequests),
    cancel_pulls: flag(repo.cancelPulls),
    cancel_push: flag(repo.cancelPush),
    cancel_running: flag(repo.cancelRunning),
    fork_id_tokens: flag(repo.forkIdTokens),
    throttle: repo.throttle,
    approval: repo.approval,
    namespace_uid: repo.namespaceUid,
    timeout: repo.timeout,
    synced: repo.synced,
  };
}

/** The credentials, plain; stored through the cipher, bound to the row. */
function credentials(repo: Pick<NewRepo, 'signingKey' | 'hookSecret'>) {
  return { signing_key: repo.signingKey, hook_secret: repo.hookSecret };
}

/** Repositories in the `repos` table; signing keys and hook secrets through the cipher chosen at open. */
export class SqlRepoStore implements RepoStore {
  readonly #db: Kysely<Tables>;
  readonly #adapter: DialectAdapter;
  readonly #cipher: SecretCipher;
  readonly #toRepo: (row: Selectable<RepoRow>) => Repo;

  constructor({ db, adapter }: Connection, cipher: SecretCipher) {
    this.#db = db;
    this.#adapter = adapter;
    this.#cipher = cipher;
    this.#toRepo = (row) => toRepo(cipher, row);
  }

  async find(id: number): Promise<Repo | undefined> {
    const row = await this.#db.selectFrom('repos').selectAll().where('id', '=', id).executeTakeFirst();
    return row && this.#toRepo(row);
  }

  async findUid(uid: string): Promise<Repo | undefined> {
    const row = await this.#db.selectFrom('repos').selectAll().where('uid', '=', uid).executeTakeFirst();
    return row && this.#toRepo(row);
  }

  async findNamespaceUid(namespace: string): Promise<string> {
    const row = await this.#db
      .selectFrom('repos')
      .select('namespace_uid')
      .where('namespace', '=', namespace)
      .where('namespace_uid', '<>', '')
      .orderBy('synced', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();
    return row?.namespace_uid ?? '';
  }

  async findSlug(namespace: string, name: string): Promise<Repo | undefined> {
    const slug = `${namespace}/${name}`;
    const row = await this.#db.selectFrom('repos').selectAll().where('slug', '=', slug).executeTakeFirst();
    return row && this.#toRepo(row);
  }

  async list(): Promise<Repo[]> {
    return (await this.#db.selectFrom('repos').selectAll().orderBy('slug').execute()).map(this.#toRepo);
  }

  async listUser(userId: number): Promise<RepoWithPerm[]> {
    const rows = await this.#db
      .selectFrom('repos')
      .innerJoin('perms', 'perms.repo_id', 'repos.id')
      .selectAll('repos')
      // Named apart: both tables have synced, created and updated.
      .select([
        'perms.read as perm_read',
        'perms.write as perm_write',
        'perms.admin as perm_admin',
        'perms.synced as perm_synced',
        'perms.created as perm_created',
        'perms.updated as perm_updated',
      ])
      .where('perms.user_id', '=', userId)
      .where((eb) => eb.or([eb('perms.read', '=', 1), eb('perms.write', '=', 1), eb('perms.admin', '=', 1)]))
      .orderBy('repos.slug')
      .execute();
    return rows.map((row) => ({
      repo: this.#toRepo(row),
      perm: toPerm({
        user_id: userId,
        repo_id: row.id,
        read: row.perm_read,
        write: row.perm_write,
        admin: row.perm_admin,
        synced: row.perm_synced,
        created: row.perm_created,
        updated: row.perm_updated,
      }),
    }));
  }

  async listActive(): Promise<Repo[]> {
    const rows = await this.#db
      .selectFrom('repos')
      .selectAll()
      .where('active', '=', 1)
      .orderBy('slug')
      .execute();
    return rows.map(this.#toRepo);
  }

  async count(): Promise<number> {
    const row = await this.#db
      .selectFrom('repos')
      .select((eb) => eb.fn.countAll().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async create(repo: NewRepo): Promise<Repo> {
    const now = Date.now();
    const plain = credentials(repo);
    const values = {
      ...columns(repo),
      ...insertedColumns(this.#cipher, plain),
      counter: 0,
      created: now,
      updated: now,
      version: 1,
    };
    const id = await write(
      this.#adapter,
      () =>
        inTransaction(this.#db, async (trx) => {
          const id = await insertId(this.#adapter, trx.insertInto('repos').values(values));
          if (this.#cipher.encrypted) {
            await trx
              .updateTable('repos')
              .set(sealColumns(this.#cipher, 'repos', id, plain))
              .where('id', '=', id)
              .execute();
          }
          return id;
        }),
      { conflict: () => this.#collision(repo, undefined) },
    );
    return { ...repo, id, counter: 0, created: now, updated: now, version: 1 };
  }

  async update(repo: Repo): Promise<Repo> {
    const updated = Date.now();
    const sealed = sealColumns(this.#cipher, 'repos', repo.id, credentials(repo));
    const result = await write(
      this.#adapter,
      () =>
        this.#db
          .updateTable('repos')
          .set({ ...columns(repo), ...sealed, updated, version: repo.version + 1 })
          .where('id', '=', repo.id)
          .where('version', '=', repo.version)
          .executeTakeFirstOrThrow(),
      { conflict: () => this.#collision(repo, repo.id) },
    );
    const what = `repository ${repo.slug}`;
    await checkVersioned(changed(result), what, repo.version, () => this.find(repo.id));
    // The counter moves with every new build, without a version change: return the stored one.
    const stored = await this.#db
      .selectFrom('repos')
      .select('counter')
      .where('id', '=', repo.id)
      .executeTakeFirst();
    return { ...repo, counter: Number(stored?.counter ?? repo.counter), updated, version: repo.version + 1 };
  }

  async setCounter(id: number, counter: number): Promise<boolean> {
    // One conditional statement: a build numbered above the new counter may appear at any moment.
    const result = await this.#db
      .updateTable('repos')
      .set({ counter })
      .where('id', '=', id)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('builds')
              .select('builds.id')
              .where('builds.repo_id', '=', id)
              .where('builds.number', '>', counter),
          ),
        ),
      )
      .executeTakeFirst();
    return changed(result) > 0;
  }

  async delete(id: number): Promise<void> {
    // Foreign keys cascade to the builds (and their stages, steps, logs), perms, secrets, crons and
    // cache entries (whose blobs the cache service sweeps); the artifacts' rows stay until their
    // blobs are deleted (ArtifactStore.ofPurgedBuilds).
    await this.#db.deleteFrom('repos').where('id', '=', id).execute();
  }

  /** Which unique column a write of the repository (`self`: its id, when it exists) collided on. */
  async #collision(repo: NewRepo, self: number | undefined): Promise<string> {
    const holder = await this.findUid(repo.uid);
    return holder !== undefined && holder.id !== self
      ? `repository with uid "${repo.uid}" already exists (${holder.slug})`
      : `repository "${repo.slug}" already exists`;
  }
}
