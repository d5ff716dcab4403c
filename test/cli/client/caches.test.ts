import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enable, loginAs, tokenOf } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { clientFor, jsonOf, type Svc } from './run.js';

const ODD_KEY = 'node-{linux}/deps v2';
const T0 = Date.UTC(2030, 0, 1, 12);

describe('svc cache against a real server', () => {
  let h: Harness;
  let admin: Svc;
  let writer: Svc;

  async function put(scope: string, key: string, size: number, minutes: number): Promise<void> {
    const repo = await h.store.repos.findSlug('octocat', 'app');
    if (repo === undefined) throw new Error('octocat/app is not enabled');
    const blob = `caches/${repo.id}/${minutes}`;
    await h.blobs.put(blob, Readable.from([Buffer.alloc(16)]));
    const created = T0 + minutes * 60_000;
    await h.store.caches.put({ repoId: repo.id, scope, key, size, blob, created, used: created });
  }

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true, writers: ['writer'] });
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    admin = clientFor(h, await tokenOf(h, session));
    writer = clientFor(h, await tokenOf(h, await loginAs(h, 'writer')));
    // svc learns the writer's permission when they list their repositories.
    expect((await writer('repo', 'ls')).code).toBe(0);
  });
  afterAll(() => h.close());

  it('lists the caches as a table with human sizes, or as the server’s JSON', async () => {
    expect((await admin('cache', 'ls', 'octocat/app')).stdout).toBe('no caches\n');
    await put('refs/heads/main', 'npm-abc', 48_213_504, 1);
    await put('refs/pull/7/head', ODD_KEY, 512, 2);
    const listed = await writer('cache', 'ls', 'octocat/app');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe(
      [
        'KEY                   SCOPE             SIZE      LAST USED',
        `${ODD_KEY}  refs/pull/7/head  512 B     2030-01-01 12:02:00Z`,
        'npm-abc               refs/heads/main   46.0 MiB  2030-01-01 12:01:00Z',
        '',
      ].join('\n'),
    );
    const json = jsonOf<{ key: string; size: number; used: number }[]>(
      await writer('cache', 'ls', 'octocat/app', '--format', 'json'),
    );
    expect(json.map((c) => [c.key, c.size, c.used])).toEqual([
      [ODD_KEY, 512, (T0 + 120_000) / 1000],
      ['npm-abc', 48_213_504, (T0 + 60_000) / 1000],
    ]);
  });

  it('removes one key, or every cache only with --all; writers may not, and the server says so', async () => {
    await put('refs/heads/main', ODD_KEY, 100, 3);
    await put('refs/heads/main', 'npm-abc', 100, 4);
    const refused = await writer('cache', 'rm', 'octocat/app', ODD_KEY);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('svc: admin access to octocat/app is needed\n');

    expect(await admin('cache', 'rm', 'octocat/app', ODD_KEY)).toEqual({
      code: 0,
      stdout: `cache ${ODD_KEY} removed\n`,
      stderr: '',
    });
    expect((await admin('cache', 'ls', 'octocat/app')).stdout).not.toContain(ODD_KEY);
    const gone = await admin('cache', 'rm', 'octocat/app', ODD_KEY);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe(`svc: cache "${ODD_KEY}" not found\n`);

    // No key: nothing is removed unless --all says so.
    const bare = await admin('cache', 'rm', 'octocat/app');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/^svc: missing the cache’s key; to remove every cache, give --all\n/);
    expect((await admin('cache', 'rm', 'octocat/app', 'npm-abc', '--all')).code).toBe(2);
    expect((await admin('cache', 'ls', 'octocat/app')).stdout).toContain('npm-abc');

    expect((await admin('cache', 'rm', 'octocat/app', '--all')).stdout).toBe(
      'every cache of octocat/app removed\n',
    );
    expect((await admin('cache', 'ls', 'octocat/app')).stdout).toBe('no caches\n');
    const quiet = await admin('cache', 'rm', 'octocat/app', '--all', '--format', 'json');
    expect(quiet).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});
