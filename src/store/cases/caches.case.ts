import { afterAll, describe, expect, it } from 'vitest';
import type { NewCacheEntry } from '../../core/cache.js';
import { NotFoundError } from '../../core/errors.js';
import type { Store } from '../../core/store.js';
import { newRepo, unique, useOpenedStore, type OpenFreshStore } from './fixtures.case.js';

const MAIN = 'refs/heads/main';
const T = 1_700_000_000_000;

function newEntry(repoId: number, overrides: Partial<NewCacheEntry> = {}): NewCacheEntry {
  return {
    repoId,
    scope: MAIN,
    key: unique('deps-'),
    size: 1_000,
    blob: unique('caches/blob-'),
    created: T,
    used: T,
    ...overrides,
  };
}

/** CacheStore: put (add or replace), find, findPrefix, list, unusedSince, touch, delete, totalSize. */
export function cachesContract(open: OpenFreshStore): void {
  describe('caches', () => {
    const opened = useOpenedStore(open);
    const store = () => opened().store;
    const others: Store[] = [];
    afterAll(async () => {
      for (const other of others) await other.close();
    });
    const repo = async () => (await store().repos.create(newRepo())).id;

    it('adds an entry and finds it by repository, scope and key', async () => {
      const id = await repo();
      const input = newEntry(id, { key: 'node-modules-ÿ✓-abc', size: 5_000_000_000 });
      const { entry, replaced } = await store().caches.put(input);
      expect(entry).toEqual({ ...input, id: expect.any(Number) as number });
      expect(replaced).toBeUndefined();
      expect(await store().caches.find(id, MAIN, input.key)).toEqual(entry);
      expect(await store().caches.find(id, MAIN, 'node-modules')).toBeUndefined();
      expect(await store().caches.find(id, 'refs/heads/dev', input.key)).toBeUndefined();
      expect(await store().caches.find(await repo(), MAIN, input.key)).toBeUndefined();
    });

    it('takes keys of 512 and scopes of 255 characters, and keys apart that differ by case or a trailing space', async () => {
      const id = await repo();
      const long = newEntry(id, { scope: `refs/heads/${'ß'.repeat(244)}`, key: 'k'.repeat(511) + '✓' });
      const { entry } = await store().caches.put(long);
      expect(await store().caches.find(id, long.scope, long.key)).toEqual(entry);
      const lower = (await store().caches.put(newEntry(id, { key: 'key' }))).entry;
      const upper = (await store().caches.put(newEntry(id, { key: 'KEY' }))).entry;
      const spaced = (await store().caches.put(newEntry(id, { key: 'key ' }))).entry;
      expect(await store().caches.find(id, MAIN, 'key')).toEqual(lower);
      expect(await store().caches.find(id, MAIN, 'KEY')).toEqual(upper);
      expect(await store().caches.find(id, MAIN, 'key ')).toEqual(spaced);
    });

    it('replaces the entry of the same key, answering the one replaced, and keeps one row', async () => {
      const id = await repo();
      const first = (await store().caches.put(newEntry(id, { key: 'go', blob: 'caches/a', created: T })))
        .entry;
      const second = newEntry(id, { key: 'go', blob: 'caches/b', size: 7, created: T + 1, used: T + 1 });
      const { entry, replaced } = await store().caches.put(second);
      expect(replaced).toEqual(first);
      expect(entry).toMatchObject(second);
      expect(await store().caches.find(id, MAIN, 'go')).toEqual(entry);
      expect(await store().caches.list(id)).toEqual([entry]);
    });

    it('keeps the same key of different scopes apart', async () => {
      const id = await repo();
      const main = (await store().caches.put(newEntry(id, { key: 'cargo' }))).entry;
      const pull = await store().caches.put(newEntry(id, { key: 'cargo', scope: 'refs/pull/7/head' }));
      expect(pull.replaced).toBeUndefined();
      expect(await store().caches.find(id, MAIN, 'cargo')).toEqual(main);
      expect(await store().caches.find(id, 'refs/pull/7/head', 'cargo')).toEqual(pull.entry);
      expect(await store().caches.list(id)).toHaveLength(2);
    });

    it('finds the newest entry of the scope whose key starts with a prefix (ties: the last saved)', async () => {
      const id = await repo();
      const put = async (key: string, created: number, scope = MAIN) =>
        (await store().caches.put(newEntry(id, { key, created, scope }))).entry;
      await put('npm-linux-old', T);
      const tied = [await put('npm-linux-a', T + 5), await put('npm-linux-b', T + 5)];
      await put('npm-linux-c', T + 1);
      await put('npm-linux-newer', T + 9, 'refs/heads/dev');
      await put('npm-macos', T + 9);
      expect(await store().caches.findPrefix(id, MAIN, 'npm-linux-')).toEqual(tied[1]);
      expect((await store().caches.findPrefix(id, MAIN, 'npm-'))?.key).toBe('npm-macos');
      expect((await store().caches.findPrefix(id, MAIN, ''))?.key).toBe('npm-macos');
      expect((await store().caches.findPrefix(id, 'refs/heads/dev', 'npm'))?.key).toBe('npm-linux-newer');
      expect(await store().caches.findPrefix(id, MAIN, 'pip-')).toBeUndefined();
      expect(await store().caches.findPrefix(id, 'refs/heads/other', 'npm')).toBeUndefined();
      expect(await store().caches.findPrefix(await repo(), MAIN, 'npm')).toBeUndefined();
    });

    it('matches a prefix literally: no wildcards, case and trailing spaces count', async () => {
      const id = await repo();
      const put = async (key: string, created: number) =>
        (await store().caches.put(newEntry(id, { key, created }))).entry;
      const underscore = await put('v1_x', T);
      await put('v1ax', T + 1);
      const percent = await put('50%-off', T);
      await put('50-and-more', T + 1);
      const bang = await put('wow!_%', T);
      await put('wow!a', T + 1);
      await put('Case', T + 1);
      const lower = await put('case', T);
      const spaceless = await put('pad', T);
      expect(await store().caches.findPrefix(id, MAIN, 'v1_')).toEqual(underscore);
      expect(await store().caches.findPrefix(id, MAIN, '50%')).toEqual(percent);
      expect(await store().caches.findPrefix(id, MAIN, 'wow!_')).toEqual(bang);
      expect(await store().caches.findPrefix(id, MAIN, 'wow!_%')).toEqual(bang);
      expect(await store().caches.findPrefix(id, MAIN, 'c')).toEqual(lower);
      expect(await store().caches.findPrefix(id, MAIN, 'pad')).toEqual(spaceless);
      expect(await store().caches.findPrefix(id, MAIN, 'pad ')).toBeUndefined();
      expect(await store().caches.findPrefix(id, MAIN, '%')).toBeUndefined();
      expect(await store().caches.findPrefix(id, MAIN, '_')).toBeUndefined();
    });

    it('lists a repository’s entries newest first', async () => {
      const id = await repo();
      const put = async (created: number, scope = MAIN) =>
        (await store().caches.put(newEntry(id, { created, scope }))).entry;
      const old = await put(T);
      const tieA = await put(T + 1);
      const newest = await put(T + 2, 'refs/tags/v1');
      const tieB = await put(T + 1);
      expect(await store().caches.list(id)).toEqual([newest, tieB, tieA, old]);
      expect(await store().caches.list(await repo())).toEqual([]);
    });

    it('lists entries of every repository used before a time, least recently used first, at most a limit; touch moves one', async () => {
      // Times far below every other test's, which share the database.
      const [first, second] = [await repo(), await repo()];
      const put = async (repoId: number, used: number) =>
        (await store().caches.put(newEntry(repoId, { used, created: used }))).entry;
      const c = await put(first, 30);
      const a = await put(second, 10);
      const b = await put(first, 20);
      const tie = await put(second, 20);
      await put(first, 40);
      expect(await store().caches.unusedSince(40, 10)).toEqual([a, b, tie, c]);
      expect(await store().caches.unusedSince(40, 2)).toEqual([a, b]);
      expect(await store().caches.unusedSince(10, 10)).toEqual([]);
      await store().caches.touch(a.id, 35);
      expect(await store().caches.find(second, MAIN, a.key)).toEqual({ ...a, used: 35 });
      expect(await store().caches.unusedSince(40, 10)).toEqual([b, tie, c, { ...a, used: 35 }]);
      await store().caches.touch(987_654, 1);
    });

    it('deletes entries by id, ignoring ids it does not have', async () => {
      const id = await repo();
      const entries = await Promise.all(
        [1, 2, 3].map(async () => (await store().caches.put(newEntry(id))).entry),
      );
      await store().caches.delete([]);
      await store().caches.delete([entries[0]?.id ?? 0, entries[2]?.id ?? 0, 987_654]);
      expect(await store().caches.list(id)).toEqual([entries[1]]);
      expect(await store().caches.find(id, MAIN, entries[0]?.key ?? '')).toBeUndefined();
    });

    it('sums the sizes of a repository’s entries', async () => {
      const [id, other] = [await repo(), await repo()];
      expect(await store().caches.totalSize(id)).toBe(0);
      await store().caches.put(newEntry(id, { size: 3_000_000_000 }));
      await store().caches.put(newEntry(id, { size: 2_000_000_000, scope: 'refs/pull/1/head' }));
      await store().caches.put(newEntry(other, { size: 5 }));
      expect(await store().caches.totalSize(id)).toBe(5_000_000_000);
      expect(await store().caches.totalSize(other)).toBe(5);
    });

    it('refuses an entry of a repository that does not exist, and drops entries with their repository', async () => {
      await expect(store().caches.put(newEntry(987_654))).rejects.toBeInstanceOf(NotFoundError);
      const id = await repo();
      const { entry } = await store().caches.put(newEntry(id, { used: 50 }));
      await store().repos.delete(id);
      expect(await store().caches.find(id, MAIN, entry.key)).toBeUndefined();
      expect(await store().caches.list(id)).toEqual([]);
      expect(await store().caches.totalSize(id)).toBe(0);
      expect((await store().caches.unusedSince(51, 100)).map((e) => e.id)).not.toContain(entry.id);
    });

    it('keeps one entry when servers save the same key at once, each replaced entry answered once', async () => {
      const second = (await opened().another?.()) ?? store();
      if (second !== store()) others.push(second);
      const id = await repo();
      const { entry: first } = await store().caches.put(newEntry(id, { key: 'race' }));
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? store() : second).caches.put(newEntry(id, { key: 'race', created: T + i })),
        ),
      );
      const kept = await store().caches.list(id);
      expect(kept).toHaveLength(1);
      const replaced = results.flatMap((r) => (r.replaced === undefined ? [] : [r.replaced.blob]));
      const saved = [first, ...results.map((r) => r.entry)].map((e) => e.blob);
      expect([...replaced, kept[0]?.blob].sort()).toEqual(saved.sort());
    });
  });
}
