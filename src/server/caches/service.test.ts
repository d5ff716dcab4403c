import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../core/repo.js';
import type { Store } from '../../core/store.js';
import { testDialects } from '../../../test/support/databases.js';
import { DiskBlobStore } from '../../store/blobs/disk-blobs.js';
import { newRepo } from '../../store/cases/fixtures.case.js';
import { openStore } from '../../store/index.js';
import { CacheService } from './service.js';

const bytes = (text: string) => Readable.from([Buffer.from(text)]);
const text = async (stream: Readable | undefined) => {
  if (stream === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

const main = { ref: 'refs/heads/main', event: 'push', sourceRepo: '', debug: false } as const;
const feature = { ref: 'refs/heads/feature', event: 'push', sourceRepo: '', debug: false } as const;

describe('CacheService on SQLite and the server’s disk', () => {
  let store: Store;
  let drop: () => Promise<void>;
  let repo: Repo;
  let now = 1_000_000;
  let blobs: DiskBlobStore;
  let caches: CacheService;

  beforeAll(async () => {
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite');
    const database = await sqlite.create();
    store = await openStore({ datasource: database.datasource });
    drop = async () => {
      await store.close();
      await database.drop();
    };
    repo = await store.repos.create(newRepo({ defaultBranch: 'main' }));
    blobs = new DiskBlobStore(mkdtempSync(join(tmpdir(), 'svc-cache-service-')));
    caches = new CacheService({
      store: store.caches,
      blobs,
      limits: { maxSize: 100, maxAge: 10_000 },
      now: () => now,
    });
  });
  afterAll(async () => drop?.());

  it('reads its own branch first, then the default branch’s; restore keys by prefix', async () => {
    await caches.save(repo, main, 'deps-1', bytes('main 1'));
    now += 1;
    expect((await caches.restore(repo, feature, 'deps-1', []))?.entry.scope).toBe('refs/heads/main');
    await caches.save(repo, feature, 'deps-1', bytes('feature 1'));
    now += 1;
    const own = await caches.restore(repo, feature, 'deps-1', []);
    expect([own?.entry.scope, own?.exact, await text(own?.body)]).toEqual([
      'refs/heads/feature',
      true,
      'feature 1',
    ]);
    // main never sees the feature branch's entry.
    expect(await text((await caches.restore(repo, main, 'deps-1', []))?.body)).toBe('main 1');
    const byPrefix = await caches.restore(repo, main, 'deps-2', ['nothing-', 'deps-']);
    expect([byPrefix?.entry.key, byPrefix?.exact]).toEqual(['deps-1', false]);
    expect(await caches.restore(repo, main, 'other', ['x-'])).toBeUndefined();
  });

  it('never lets a fork’s pull request write, though it reads the default branch', async () => {
    const fork = {
      ref: 'refs/pull/7/head',
      event: 'pull_request',
      sourceRepo: 'mallory/app',
      debug: false,
    } as const;
    await expect(caches.save(repo, fork, 'deps-1', bytes('poison'))).rejects.toThrow(
      'a pull request from a fork reads caches but never writes one',
    );
    expect(await text((await caches.restore(repo, fork, 'deps-1', []))?.body)).toBe('main 1');
    // A pull request of the repository itself writes its own scope only.
    const own = {
      ref: 'refs/pull/8/head',
      event: 'pull_request',
      sourceRepo: repo.slug,
      debug: false,
    } as const;
    await caches.save(repo, own, 'deps-1', bytes('pr 8'));
    expect(await text((await caches.restore(repo, main, 'deps-1', []))?.body)).toBe('main 1');
  });

  it('keeps what a custom or debug build of main saves apart from what main’s pushes restore', async () => {
    const custom = { ref: 'refs/heads/main', event: 'custom', sourceRepo: '', debug: false } as const;
    const debug = { ...main, debug: true };
    await caches.save(repo, custom, 'deps-1', bytes('asked for'));
    await caches.save(repo, debug, 'deps-1', bytes('debugged'));
    expect(await text((await caches.restore(repo, main, 'deps-1', []))?.body)).toBe('main 1');
    // Each reads its own first, then main's.
    expect(await text((await caches.restore(repo, custom, 'deps-1', []))?.body)).toBe('debugged');
    expect((await caches.list(repo)).map((e) => e.scope)).toContain('custom:refs/heads/main');
    await caches.remove(repo, 'deps-1');
    await caches.save(repo, main, 'deps-1', bytes('main 1'));
  });

  it('replaces a key in its scope and deletes the old archive', async () => {
    const before = (await store.caches.find(repo.id, 'refs/heads/main', 'deps-1'))?.blob ?? '';
    await caches.save(repo, main, 'deps-1', bytes('main 2'));
    expect(await blobs.get(before)).toBeUndefined();
    expect(await text((await caches.restore(repo, main, 'deps-1', []))?.body)).toBe('main 2');
  });

  it('refuses an archive over the size limit and stores nothing of it', async () => {
    const count = (await caches.list(repo)).length;
    await expect(caches.save(repo, main, 'huge', bytes('x'.repeat(101)))).rejects.toThrow(
      /SVC_CACHE_MAX_SIZE/,
    );
    expect((await caches.list(repo)).length).toBe(count);
    const stored = [];
    for await (const blob of blobs.list(`caches/${repo.id}`)) stored.push(blob);
    expect(stored.length).toBe(count);
  });

  it('evicts the least recently used beyond the limit, and expires unused ones', async () => {
    const other = await store.repos.create(newRepo({ defaultBranch: 'main' }));
    for (const key of ['a', 'b', 'c']) {
      now += 10;
      await caches.save(other, main, key, bytes('x'.repeat(40)));
    }
    // a and b were 80 bytes; c made 120 > 100: a, the least recently used, went.
    expect((await caches.list(other)).map((e) => e.key).sort()).toEqual(['b', 'c']);
    now += 10;
    await caches.restore(other, main, 'b', []);
    now += 10;
    await caches.save(other, main, 'd', bytes('x'.repeat(40)));
    expect((await caches.list(other)).map((e) => e.key).sort()).toEqual(['b', 'd']);
    now += 10_001;
    await caches.restore(other, main, 'd', []);
    expect(await caches.expire()).toBeGreaterThanOrEqual(1);
    expect((await caches.list(other)).map((e) => e.key)).toEqual(['d']);
  });

  it('drops an entry whose archive is gone', async () => {
    await caches.save(repo, main, 'deps-1', bytes('main 3'));
    const entry = await store.caches.find(repo.id, 'refs/heads/main', 'deps-1');
    await blobs.delete(entry?.blob ?? '');
    expect(await caches.restore(repo, main, 'deps-1', [])).toBeUndefined();
    expect(await store.caches.find(repo.id, 'refs/heads/main', 'deps-1')).toBeUndefined();
  });

  it('removes the archives no entry names once a day old: a deleted repository’s, a crash’s leftover', async () => {
    const doomed = await store.repos.create(newRepo({ defaultBranch: 'main' }));
    await caches.save(doomed, main, 'deps', bytes('doomed'));
    const doomedBlob = (await store.caches.list(doomed.id))[0]?.blob;
    await caches.save(repo, main, 'kept', bytes('kept'));
    // A server killed between storing the archive and indexing it.
    await blobs.put(`caches/${repo.id}/${'0'.repeat(32)}`, bytes('never indexed'));
    await blobs.put('caches/not-a-repository/x', bytes('not svc’s'));
    await store.repos.delete(doomed.id);
    const day = 24 * 60 * 60_000;
    expect(await caches.removeOrphans(Date.now() + day / 2)).toBe(0);
    expect(await caches.removeOrphans(Date.now() + 2 * day)).toBe(2);
    const left = [];
    for await (const blob of blobs.list('caches/')) left.push(blob.key);
    const named = (await store.caches.list(repo.id)).map((entry) => entry.blob);
    expect(left).toEqual(expect.arrayContaining([...named, 'caches/not-a-repository/x']));
    expect(left).not.toContain(doomedBlob);
    expect(left).not.toContain(`caches/${repo.id}/${'0'.repeat(32)}`);
    expect(await text((await caches.restore(repo, main, 'kept', []))?.body)).toBe('kept');
  });
});
