/*
 * Test support: a database as the svc before "secrets at rest" (schema version 10) wrote it. API
 * tokens, provider tokens, signing keys and hook secrets in plain text; secret values in plain text,
 * or, with a key, encrypted the old way (AES-256-GCM bound to nothing, scheme "aes-256-gcm" in
 * meta). The old format is written out here on purpose, not taken from today's cipher, so that the
 * tests keep checking what old databases really hold.
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Datasource } from '../../src/core/datasource.js';
import { connect } from '../../src/store/dialects/connect.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { migrate } from '../../src/store/migrations/migrator.js';
import type { Tables } from '../../src/store/tables.js';

/** The last schema version before API tokens were hashed and the other credentials encrypted. */
export const PREVIOUS_VERSION = 10;

export interface OldUser {
  login: string;
  /** svc's API token, stored as it is. */
  token: string;
  scmToken: string;
  scmRefresh: string;
  admin?: boolean;
  machine?: boolean;
}

export interface OldRepo {
  /** The provider's id of the repository. */
  uid: string;
  slug: string;
  /** Login of the user who enabled it (and gets admin rights on it). */
  owner: string;
  hookSecret: string;
  signingKey: string;
  protected?: boolean;
}

export interface OldSecret {
  /** Slug of the repository it belongs to. */
  repo: string;
  name: string;
  value: string;
}

/** What the old database holds; the ids svc gave the rows. */
export interface OldRows {
  users: OldUser[];
  repos: OldRepo[];
  secrets: OldSecret[];
}

/** The previous version's value encryption: base64 of nonce, ciphertext and tag, no associated data. */
export function oldSeal(key: Uint8Array, plain: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/**
 * Writes `rows` into the empty database of `datasource` at schema version 10, as the previous svc
 * would have; with `key`, its secret values are encrypted the old way and the database marked so.
 * Answers the ids of the users, repositories and secrets, by login, slug and name.
 */
export async function writePreviousVersion(
  datasource: Datasource,
  rows: OldRows,
  key?: Uint8Array,
): Promise<Map<string, number>> {
  const { db, adapter } = await connect(datasource, () => undefined);
  const ids = new Map<string, number>();
  try {
    await migrate(db, adapter, () => undefined, MIGRATIONS.slice(0, PREVIOUS_VERSION));
    const now = Date.now();
    const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    for (const user of rows.users) {
      await raw
        .insertInto('users')
        .values({
          login: user.login,
          email: `${user.login}@example.com`,
          avatar: '',
          machine: user.machine === true ? 1 : 0,
          admin: user.admin === true ? 1 : 0,
          active: 1,
          token: user.token,
          scm_token: user.scmToken,
          scm_refresh: user.scmRefresh,
          scm_expiry: 0,
          last_login: now,
          created: now,
          updated: now,
        })
        .execute();
      ids.set(user.login, await idOf(db, 'users', 'login', user.login));
    }
    for (const repo of rows.repos) {
      const [namespace = '', name = ''] = repo.slug.split('/');
      const userId = ids.get(repo.owner) ?? 0;
      await raw
        .insertInto('repos')
        .values({
          uid: repo.uid,
          user_id: userId,
          namespace,
          name,
          slug: repo.slug,
          scm: 'scmc',
          clone_url: `https://github.com/${repo.slug}.git`,
          clone_url_ssh: `git@github.com:${repo.slug}.git`,
          link: `https://github.com/${repo.slug}`,
          default_branch: 'main',
          private: 0,
          visibility: 'public',
          active: 1,
          config_path: '',
          trusted: 0,
          protected: repo.protected === true ? 1 : 0,
          ignore_forks: 0,
          ignore_pull_requests: 0,
          cancel_pulls: 0,
          cancel_push: 0,
          timeout: 60,
          counter: 0,
          hook_secret: repo.hookSecret,
          throttle: 0,
          cancel_running: 0,
          approval: 'forks',
          signing_key: repo.signingKey,
          synced: now,
          created: now,
          updated: now,
          version: 1,
        })
        .execute();
      const repoId = await idOf(db, 'repos', 'slug', repo.slug);
      ids.set(repo.slug, repoId);
      await raw
        .insertInto('perms')
        .values({
          user_id: userId,
          repo_id: repoId,
          read: 1,
          write: 1,
          admin: 1,
          synced: now,
          created: now,
          updated: now,
        })
        .execute();
    }
    for (const secret of rows.secrets) {
      const repoId = ids.get(secret.repo) ?? 0;
      await raw
        .insertInto('secrets')
        .values({
          scope: 'repo',
          scope_key: String(repoId),
          repo_id: repoId,
          name: secret.name,
          data: key === undefined ? secret.value : oldSeal(key, secret.value),
          pull_request: 0,
          pull_request_push: 0,
          created: now,
          updated: now,
        })
        .execute();
      ids.set(secret.name, await idOf(db, 'secrets', 'name', secret.name));
    }
    if (key !== undefined) {
      await raw
        .insertInto('meta')
        .values([
          { name: 'secrets_encryption', value: 'aes-256-gcm' },
          { name: 'secrets_key_check', value: oldSeal(key, 'svc secret key check v1') },
        ])
        .execute();
    }
    return ids;
  } finally {
    await db.destroy();
  }
}

async function idOf(db: Kysely<Tables>, table: 'users' | 'repos' | 'secrets', column: string, value: string) {
  const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const row = await raw.selectFrom(table).select('id').where(column, '=', value).executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Every row of a table as stored, for tests that look at what is at rest. */
export async function storedRows(datasource: Datasource, table: string): Promise<Record<string, unknown>[]> {
  const { db } = await connect(datasource, () => undefined);
  try {
    const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    return await raw.selectFrom(table).selectAll().orderBy('id').execute();
  } finally {
    await db.destroy();
  }
}

/** Sets one column of one row as stored, behind svc's back (an attacker with write access to the database). */
export async function setStored(
  datasource: Datasource,
  table: string,
  id: number,
  values: Record<string, unknown>,
): Promise<void> {
  const { db } = await connect(datasource, () => undefined);
  try {
    const raw = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    await raw.updateTable(table).set(values).where('id', '=', id).execute();
  } finally {
    await db.destroy();
  }
}
