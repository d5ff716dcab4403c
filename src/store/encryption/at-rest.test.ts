/*
 * Credentials at rest (issue 30, fault 8): what the database holds of API tokens, provider tokens,
 * signing keys, hook secrets and secret values, and what happens when someone with write access to
 * the database moves a stored value from one row to another.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDatabaseSecret } from '../../core/secret-key.js';
import type { Store } from '../../core/store.js';
import { newRepo, newUser } from '../cases/fixtures.case.js';
import { openStore } from '../index.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import {
  setStored,
  storedRows,
  writePreviousVersion,
  type OldRows,
} from '../../../test/support/previous-version.js';

const key = parseDatabaseSecret('0123456789abcdef0123456789abcdef') as Uint8Array;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const OLD: OldRows = {
  users: [
    {
      login: 'alice',
      token: 'alice-api-token-0123456789abcdef',
      scmToken: 'gho_alice',
      scmRefresh: 'ghr_alice',
    },
    { login: 'bob', token: 'bob-api-token-0123456789abcdef01', scmToken: 'gho_bob', scmRefresh: '' },
  ],
  repos: [
    {
      uid: '101',
      slug: 'alice/app',
      owner: 'alice',
      hookSecret: 'hook-app',
      signingKey: 'key-app-0123456789abcdef01234567',
    },
    { uid: '102', slug: 'bob/lib', owner: 'bob', hookSecret: 'hook-lib', signingKey: '' },
  ],
  secrets: [
    { repo: 'alice/app', name: 'app_password', value: 'value-app' },
    { repo: 'bob/lib', name: 'lib_password', value: 'value-lib' },
  ],
};

const PLAIN_CREDENTIALS = ['gho_alice', 'ghr_alice', 'gho_bob', 'hook-app', 'hook-lib', 'key-app', 'value-'];

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`credentials at rest on ${dialect.name}`, () => {
    let database: TestDatabase;
    let store: Store | undefined;
    beforeEach(async () => {
      database = await dialect.create();
    });
    afterEach(async () => {
      await store?.close();
      store = undefined;
      await database.drop();
    });

    const rows = (table: string) => storedRows(database.datasource, table);
    const text = async (...tables: string[]) =>
      JSON.stringify(await Promise.all(tables.map((table) => rows(table))));

    it('refuses a hook secret or signing key moved from another repository instead of using it', async () => {
      store = await openStore({ datasource: database.datasource, secretKey: key });
      const a = await store.repos.create(newRepo({ hookSecret: 'hook-a', signingKey: 'signing-a' }));
      const b = await store.repos.create(newRepo({ hookSecret: 'hook-b', signingKey: 'signing-b' }));
      const [storedA] = (await rows('repos')).filter((row) => Number(row.id) === a.id);
      expect(JSON.stringify(storedA)).not.toMatch(/hook-a|signing-a/);
      expect((await store.repos.find(b.id))?.hookSecret).toBe('hook-b');

      await setStored(database.datasource, 'repos', b.id, { hook_secret: storedA?.hook_secret });
      const read = store.repos.find(b.id);
      await expect(read).rejects.toMatchObject({ code: 'ENCRYPTED_VALUE_INVALID' });
      await expect(read).rejects.toThrow(`repos.hook_secret of row ${b.id} cannot be decrypted`);
      await expect(store.repos.findSlug(b.namespace, b.name)).rejects.toThrow(/repos\.hook_secret/);

      await setStored(database.datasource, 'repos', b.id, { signing_key: storedA?.signing_key });
      await expect(store.repos.findUid(b.uid)).rejects.toMatchObject({ code: 'ENCRYPTED_VALUE_INVALID' });
    });

    it('refuses provider tokens and secret values moved from another row', async () => {
      store = await openStore({ datasource: database.datasource, secretKey: key });
      const a = await store.users.create(newUser({ scmToken: 'gho_a', scmRefresh: 'ghr_a' }));
      const b = await store.users.create(newUser({ scmToken: 'gho_b', scmRefresh: 'ghr_b' }));
      const storedA = (await rows('users')).find((row) => Number(row.id) === a.id);
      expect(JSON.stringify(storedA)).not.toMatch(/gho_a|ghr_a/);
      await setStored(database.datasource, 'users', b.id, { scm_token: storedA?.scm_token });
      await expect(store.users.find(b.id)).rejects.toThrow(
        `users.scm_token of row ${b.id} cannot be decrypted`,
      );

      const scope = { kind: 'global' } as const;
      const base = { scope, pullRequest: false, pullRequestPush: false, namespaceUid: '', environment: '' };
      const one = await store.secrets.create({ ...base, name: 'one', data: 'value-one' });
      const two = await store.secrets.create({ ...base, name: 'two', data: 'value-two' });
      const storedOne = (await rows('secrets')).find((row) => Number(row.id) === one.id);
      await setStored(database.datasource, 'secrets', two.id, { data: storedOne?.data });
      await expect(store.secrets.find(two.id)).rejects.toThrow(
        `secrets.data of row ${two.id} cannot be decrypted`,
      );
      await expect(store.secrets.list(scope)).rejects.toMatchObject({ code: 'ENCRYPTED_VALUE_INVALID' });
    });

    it('encrypts OIDC private keys, bound to their row, also those stored before the key was set', async () => {
      const oidcKey = (slot: string, marker: string) => ({
        kid: `kid-${slot}`,
        slot,
        algorithm: 'RS256',
        publicJwk: { kty: 'RSA', n: 'n', e: 'AQAB' },
        privateKey: `-----BEGIN PRIVATE KEY-----\n${marker}\n-----END PRIVATE KEY-----\n`,
        signsFrom: 0,
        signsUntil: 1,
        expires: 2,
        created: 0,
      });
      store = await openStore({ datasource: database.datasource });
      await store.oidcKeys.create(oidcKey('a', 'private-before-the-key'));
      expect(await text('oidc_keys')).toContain('private-before-the-key');
      await store.close();

      store = await openStore({ datasource: database.datasource, secretKey: key });
      const b = await store.oidcKeys.create(oidcKey('b', 'private-after-the-key'));
      expect(await text('oidc_keys')).not.toMatch(/private-(before|after)-the-key/);
      expect((await store.oidcKeys.findSlot('a'))?.privateKey).toContain('private-before-the-key');
      const storedA = (await rows('oidc_keys')).find((row) => row.slot === 'a');
      await setStored(database.datasource, 'oidc_keys', b.id, { private_key: storedA?.private_key });
      await expect(store.oidcKeys.findSlot('b')).rejects.toThrow(
        `oidc_keys.private_key of row ${b.id} cannot be decrypted`,
      );
    });

    it('hashes the API tokens of a previous version’s database and keeps the rest readable, without a key', async () => {
      const ids = await writePreviousVersion(database.datasource, OLD);
      store = await openStore({ datasource: database.datasource });
      const users = await rows('users');
      expect(JSON.stringify(users)).not.toContain('api-token');
      expect(users.map((row) => row.token_hash)).toEqual(OLD.users.map((user) => sha256(user.token)));
      expect(await store.repos.find(ids.get('alice/app') ?? 0)).toMatchObject({
        hookSecret: 'hook-app',
        signingKey: 'key-app-0123456789abcdef01234567',
      });
      expect((await store.secrets.find(ids.get('lib_password') ?? 0))?.data).toBe('value-lib');
      await store.close();

      // The key given later encrypts every credential, bound to its row.
      store = await openStore({ datasource: database.datasource, secretKey: key });
      expect(await text('users', 'repos', 'secrets')).not.toMatch(new RegExp(PLAIN_CREDENTIALS.join('|')));
      expect((await store.users.find(ids.get('alice') ?? 0))?.scmRefresh).toBe('ghr_alice');
      expect((await store.repos.find(ids.get('bob/lib') ?? 0))?.hookSecret).toBe('hook-lib');
      expect((await store.secrets.find(ids.get('app_password') ?? 0))?.data).toBe('value-app');
    });

    it('converts a previous version’s encrypted database: values bound to their rows, credentials encrypted', async () => {
      const ids = await writePreviousVersion(database.datasource, OLD, key);
      const before = await rows('secrets');
      await expect(openStore({ datasource: database.datasource })).rejects.toMatchObject({
        code: 'SECRET_KEY_MISSING',
      });

      const log: string[] = [];
      store = await openStore({
        datasource: database.datasource,
        secretKey: key,
        logger: (m) => log.push(m),
      });
      expect(log.join('\n')).toMatch(/bound 2 encrypted secret values to their rows/);
      expect(await text('users', 'repos', 'secrets')).not.toMatch(
        new RegExp([...PLAIN_CREDENTIALS, 'api-token'].join('|')),
      );
      // Re-encrypted: the old unbound values are gone.
      const after = await rows('secrets');
      expect(after.map((row) => row.data)).not.toContain(before[0]?.data);
      expect((await store.secrets.find(ids.get('app_password') ?? 0))?.data).toBe('value-app');
      expect(await store.users.find(ids.get('bob') ?? 0)).toMatchObject({
        scmToken: 'gho_bob',
        scmRefresh: '',
      });
      expect(await store.repos.find(ids.get('alice/app') ?? 0)).toMatchObject({
        hookSecret: 'hook-app',
        signingKey: 'key-app-0123456789abcdef01234567',
      });
      await store.close();
      store = undefined;

      // Converted once: the next start has nothing to do.
      const again: string[] = [];
      store = await openStore({
        datasource: database.datasource,
        secretKey: key,
        logger: (m) => again.push(m),
      });
      expect(again).toEqual([]);
      expect((await store.secrets.find(ids.get('lib_password') ?? 0))?.data).toBe('value-lib');
    });
  });
}
