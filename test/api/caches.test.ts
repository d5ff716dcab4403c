/*
 * A repository's build caches through HTTP: the list for writers (newest first, times in epoch
 * seconds), removing a key in every scope and removing all for the repository's admins, keys with
 * `/`, spaces and braces URL-encoded in the path, and nothing listed to anyone else — also not on a
 * public repository.
 */
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CacheEntry } from '../../src/core/cache.js';
import { call, enable, loginAs, tokenOf, type Answer } from './client.js';
import { startHarness, type Harness } from './harness.js';

const PRIVATE = '/api/repos/octocat/hello/caches';
const PUBLIC = '/api/repos/octocat/open/caches';
const ODD_KEY = 'node-{linux}/deps v2';
const T0 = Date.UTC(2030, 0, 1);

describe('build caches', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  const as = (who: string | undefined, method: string, path: string): Promise<Answer> =>
    call(h, path, { method, token: who === undefined ? undefined : tokens[who] });
  const entryPath = (base: string, key: string) => `${base}/${encodeURIComponent(key)}`;

  /** An entry with its archive, saved `minutes` after T0 and last used a minute later. */
  async function put(slug: string, scope: string, key: string, minutes: number): Promise<CacheEntry> {
    const [owner = '', name = ''] = slug.split('/');
    const repo = await h.store.repos.findSlug(owner, name);
    if (repo === undefined) throw new Error(`${slug} is not enabled`);
    const blob = `caches/${repo.id}/${scope.replace(/\W/g, '-')}-${minutes}`;
    const { size } = await h.blobs.put(blob, Readable.from([Buffer.from(`archive of ${key}`)]));
    const created = T0 + minutes * 60_000;
    const { entry } = await h.store.caches.put({
      repoId: repo.id,
      scope,
      key,
      size,
      blob,
      created,
      used: created + 60_000,
    });
    return entry;
  }

  const keysOf = (answer: Answer) => (answer.json as { key: string; scope: string }[]).map((c) => c.key);

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'writer', 'reader', 'outsider']) h.github.addUser({ login });
    for (const name of ['hello', 'open']) {
      h.github.addRepo({
        owner: 'octocat',
        name,
        private: name === 'hello',
        writers: ['writer'],
        readers: ['reader'],
      });
    }
    for (const login of ['octocat', 'writer', 'reader', 'outsider']) {
      const session = await loginAs(h, login);
      tokens[login] = await tokenOf(h, session);
      if (login === 'octocat') {
        await enable(h, session, 'octocat/hello');
        await enable(h, session, 'octocat/open');
      }
    }
    // svc learns the others' permissions when they list their repositories.
    for (const login of ['writer', 'reader', 'outsider'])
      expect((await as(login, 'GET', '/api/user/repos')).status).toBe(200);
  });
  afterAll(() => h.close());

  beforeEach(async () => {
    for (const slug of ['octocat/hello', 'octocat/open']) {
      const [owner = '', name = ''] = slug.split('/');
      await h.caches.remove((await h.store.repos.findSlug(owner, name))!);
    }
  });

  it('lists the caches to writers, newest first, times in epoch seconds and sizes in bytes', async () => {
    const main = await put('octocat/hello', 'refs/heads/main', 'npm-abc', 1);
    await put('octocat/hello', 'refs/pull/7/head', 'npm-def', 2);
    await put('octocat/hello', 'refs/heads/main', ODD_KEY, 3);
    await put('octocat/open', 'refs/heads/main', 'elsewhere', 4);

    for (const who of ['writer', 'octocat']) {
      const listed = await as(who, 'GET', PRIVATE);
      expect(listed.status, listed.text).toBe(200);
      expect(keysOf(listed)).toEqual([ODD_KEY, 'npm-def', 'npm-abc']);
      expect((listed.json as unknown[])[2]).toEqual({
        key: 'npm-abc',
        scope: 'refs/heads/main',
        size: main.size,
        created: (T0 + 60_000) / 1000,
        used: (T0 + 120_000) / 1000,
      });
    }
    expect(main.size).toBe('archive of npm-abc'.length);
  });

  it('removes a key in every scope for the repository’s admins; a key with / and spaces goes URL-encoded', async () => {
    const main = await put('octocat/hello', 'refs/heads/main', ODD_KEY, 1);
    const pull = await put('octocat/hello', 'refs/pull/7/head', ODD_KEY, 2);
    await put('octocat/hello', 'refs/heads/main', 'npm-abc', 3);
    await put('octocat/hello', 'refs/heads/main', 'node-{linux}/deps', 4);

    // Writers read the list but do not remove.
    expect((await as('writer', 'DELETE', entryPath(PRIVATE, ODD_KEY))).status).toBe(403);
    const removed = await as('octocat', 'DELETE', entryPath(PRIVATE, ODD_KEY));
    expect(removed.status, removed.text).toBe(204);
    expect(keysOf(await as('octocat', 'GET', PRIVATE))).toEqual(['node-{linux}/deps', 'npm-abc']);
    expect(await h.blobs.get(main.blob)).toBeUndefined();
    expect(await h.blobs.get(pull.blob)).toBeUndefined();

    const again = await as('octocat', 'DELETE', entryPath(PRIVATE, ODD_KEY));
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({ code: 'NOT_FOUND', message: `cache "${ODD_KEY}" not found` });
    // A key is matched whole: a prefix of one removes nothing.
    expect((await as('octocat', 'DELETE', entryPath(PRIVATE, 'node-{linux}'))).status).toBe(404);
    expect(keysOf(await as('octocat', 'GET', PRIVATE))).toEqual(['node-{linux}/deps', 'npm-abc']);
  });

  it('removes all of a repository’s caches for its admins, and only that repository’s', async () => {
    const entries = [
      await put('octocat/hello', 'refs/heads/main', 'npm-abc', 1),
      await put('octocat/hello', 'refs/tags/v1', 'npm-def', 2),
    ];
    await put('octocat/open', 'refs/heads/main', 'stays', 3);

    expect((await as('writer', 'DELETE', PRIVATE)).status).toBe(403);
    expect(keysOf(await as('writer', 'GET', PRIVATE))).toHaveLength(2);
    expect((await as('octocat', 'DELETE', PRIVATE)).status).toBe(204);
    expect((await as('octocat', 'GET', PRIVATE)).json).toEqual([]);
    for (const entry of entries) expect(await h.blobs.get(entry.blob)).toBeUndefined();
    expect(keysOf(await as('octocat', 'GET', PUBLIC))).toEqual(['stays']);
    // Nothing left is no error.
    expect((await as('octocat', 'DELETE', PRIVATE)).status).toBe(204);
  });

  it('keeps a private repository’s caches from readers (403), strangers (404) and anonymous callers (401)', async () => {
    await put('octocat/hello', 'refs/heads/main', 'npm-abc', 1);
    const denials: [string | undefined, number][] = [
      ['reader', 403],
      ['outsider', 404],
      [undefined, 401],
    ];
    for (const [who, status] of denials) {
      for (const [method, path] of [
        ['GET', PRIVATE],
        ['DELETE', PRIVATE],
        ['DELETE', entryPath(PRIVATE, 'npm-abc')],
      ] as const) {
        const answer = await as(who, method, path);
        expect(answer.status, `${method} ${path} as ${who ?? 'anonymous'}`).toBe(status);
        expect(answer.text).not.toContain('npm-abc"');
      }
    }
    expect(keysOf(await as('octocat', 'GET', PRIVATE))).toEqual(['npm-abc']);
  });

  it('does not list a public repository’s caches to those who may only read it', async () => {
    await put('octocat/open', 'refs/heads/main', 'npm-public', 1);
    const denials: [string | undefined, number][] = [
      ['reader', 403],
      ['outsider', 403],
      [undefined, 401],
    ];
    for (const [who, status] of denials) {
      const listed = await as(who, 'GET', PUBLIC);
      expect(listed.status, who ?? 'anonymous').toBe(status);
      expect(listed.text).not.toContain('npm-public');
      expect((await as(who, 'DELETE', entryPath(PUBLIC, 'npm-public'))).status).toBe(status);
    }
    // The repository itself stays readable to everyone.
    expect((await as(undefined, 'GET', '/api/repos/octocat/open')).status).toBe(200);
    expect(keysOf(await as('writer', 'GET', PUBLIC))).toEqual(['npm-public']);
  });
});

describe('a server that keeps no caches', () => {
  let h: Harness;
  let token = '';
  beforeAll(async () => {
    h = await startHarness({ noCaches: true });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'hello' });
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/hello');
    token = await tokenOf(h, session);
  });
  afterAll(() => h.close());

  it('answers the cache routes 404, saying so', async () => {
    for (const [method, path] of [
      ['GET', PRIVATE],
      ['DELETE', PRIVATE],
      ['DELETE', `${PRIVATE}/npm-abc`],
    ] as const) {
      const answer = await call(h, path, { method, token });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.json).toMatchObject({ code: 'NOT_FOUND', message: 'this server keeps no caches' });
    }
  });
});
