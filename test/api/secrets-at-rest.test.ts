/*
 * Credentials at rest on a real server (issue 30, fault 8): what a copy of the database gives away
 * (API tokens, provider tokens, hook secrets, signing keys), and a database written by the previous
 * version still serving its users, hooks and signed pipelines after the upgrade.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseDatabaseSecret } from '../../src/core/secret-key.js';
import { signFile } from '../../src/server/signing/signature.js';
import { testDialects } from '../support/databases.js';
import { storedRows, writePreviousVersion } from '../support/previous-version.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const KEY = parseDatabaseSecret(randomBytes(32).toString('hex')) as Uint8Array;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: alpine
  commands:
  - echo test
`;

/** The SQLite file and its write-ahead log, as a copy of the server's disk would have them. */
function databaseBytes(h: Harness): string {
  if (h.datasource.driver !== 'embedded_sql') throw new Error('SQLite only');
  const { path } = h.datasource;
  return [path, `${path}-wal`]
    .filter((file) => existsSync(file))
    .map((file) => readFileSync(file).toString('latin1'))
    .join('');
}

async function storedText(h: Harness): Promise<string> {
  const tables = await Promise.all(['users', 'repos', 'secrets'].map((t) => storedRows(h.datasource, t)));
  return JSON.stringify(tables);
}

describe('credentials at rest on a real server', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['with SVC_DATABASE_SECRET', KEY],
    ['without SVC_DATABASE_SECRET', undefined],
  ])('keeps no usable API token in the database, %s', async (_, secretKey) => {
    h = await startHarness({ secretKey });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    const session = await loginAs(h, 'octocat');
    const token = await tokenOf(h, session);
    await enable(h, session, 'octocat/app');
    const signed = await call(h, '/api/repos/octocat/app/sign', {
      method: 'POST',
      token,
      body: { data: PIPELINE },
    });
    expect(signed.status).toBe(200);
    const user = await h.store.users.findLogin('octocat');
    const repo = await h.store.repos.findSlug('octocat', 'app');
    const credentials = {
      scmToken: user?.scmToken ?? '',
      hookSecret: h.github.hooks('octocat/app')[0]?.secret ?? '',
      signingKey: repo?.signingKey ?? '',
    };
    expect(Object.values(credentials).every((value) => value.length >= 16)).toBe(true);
    expect(repo?.hookSecret).toBe(credentials.hookSecret);

    const rows = await storedText(h);
    const bytes = databaseBytes(h);
    expect(rows).not.toContain(token);
    expect(bytes).not.toContain(token);
    expect(rows).toContain(sha256(token));
    for (const value of Object.values(credentials)) {
      // Encrypted with the key; without one they stay readable (docs/database.md says so).
      expect(rows.includes(value) || bytes.includes(value)).toBe(secretKey === undefined);
    }
    expect((await call(h, '/api/user', { token })).json).toMatchObject({ login: 'octocat' });
  });

  for (const dialect of testDialects()) {
    it.skipIf(dialect.skip).each([
      ['with SVC_DATABASE_SECRET', KEY],
      ['without SVC_DATABASE_SECRET', undefined],
    ])(
      `serves a ${dialect.name} database the previous version wrote, %s: old token, hook secret and signing key`,
      async (_, secretKey) => {
        const old = {
          token: `octocat-${randomBytes(12).toString('hex')}`,
          hookSecret: `hook-${randomBytes(12).toString('hex')}`,
          signingKey: randomBytes(24).toString('base64url'),
          secret: `hunter2-${randomBytes(6).toString('hex')}`,
        };
        let scmToken = '';
        h = await startHarness({
          dialect,
          secretKey,
          async database(github) {
            scmToken = github.addUser({ login: 'octocat' }).token;
            const { id } = github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
            const database = await dialect.create();
            await writePreviousVersion(
              database.datasource,
              {
                users: [{ login: 'octocat', token: old.token, scmToken, scmRefresh: '' }],
                repos: [
                  {
                    uid: String(id),
                    slug: 'octocat/app',
                    owner: 'octocat',
                    hookSecret: old.hookSecret,
                    signingKey: old.signingKey,
                    protected: true,
                  },
                ],
                secrets: [{ repo: 'octocat/app', name: 'password', value: old.secret }],
              },
              secretKey,
            );
            return database;
          },
        });

        // The API token the previous version handed out still works, and Drone's CLI still reads it back.
        expect((await call(h, '/api/user', { token: old.token })).json).toMatchObject({ login: 'octocat' });
        const echoed = await call(h, '/api/user/token', { method: 'POST', token: old.token });
        expect(echoed.json).toMatchObject({ token: old.token });

        // A hook signed with the old secret is verified; a file signed with the old key needs no approval.
        h.github.commit('octocat/app', 'main', { '.drone.yml': signFile(PIPELINE, old.signingKey).file });
        expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`, { secret: 'wrong' })).toBe(401);
        expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`, { secret: old.hookSecret })).toBe(
          200,
        );
        const repo = await h.store.repos.findSlug('octocat', 'app');
        expect((await h.store.builds.findNumber(repo?.id ?? 0, 1))?.status).toBe('pending');
        expect(
          (await h.store.secrets.findName({ kind: 'repo', repoId: repo?.id ?? 0 }, 'password'))?.data,
        ).toBe(old.secret);

        // Converted at the first start: the token hashed, the rest encrypted when there is a key.
        const rows = await storedText(h);
        expect(rows).not.toContain(old.token);
        expect(rows).toContain(sha256(old.token));
        for (const value of [scmToken, old.hookSecret, old.signingKey, old.secret]) {
          expect(rows.includes(value)).toBe(secretKey === undefined);
        }
      },
    );
  }
});
