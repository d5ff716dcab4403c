import { describe, expect, it } from 'vitest';
import type { Repo } from '../../core/repo.js';
import { RecentRepos } from './recent-repos.js';

function counting(repos: Map<number, Partial<Repo>>) {
  const reads: number[] = [];
  return {
    reads,
    find: (id: number) => {
      reads.push(id);
      const repo = repos.get(id);
      return Promise.resolve(repo === undefined ? undefined : ({ id, ...repo } as Repo));
    },
  };
}

describe('RecentRepos', () => {
  it('reads a repository once per time-to-live, and every caller gets its own object', async () => {
    let now = 0;
    const store = counting(new Map([[1, { slug: 'octocat/hello' }]]));
    const recent = new RecentRepos(store, { ttl: 1_000, now: () => now });
    const [a, b] = await Promise.all([recent.find(1), recent.find(1)]);
    expect(a?.slug).toBe('octocat/hello');
    expect(a).not.toBe(b);
    now = 999;
    await recent.find(1);
    expect(store.reads).toEqual([1]);
    now = 1_000;
    await recent.find(1);
    expect(store.reads).toEqual([1, 1]);
  });

  it('does not remember a repository that is gone, nor a failed read', async () => {
    const repos = new Map<number, Partial<Repo>>();
    const store = counting(repos);
    const recent = new RecentRepos(store, { now: () => 0 });
    expect(await recent.find(7)).toBeUndefined();
    repos.set(7, { slug: 'octocat/new' });
    expect((await recent.find(7))?.slug).toBe('octocat/new');
    let fail = true;
    const flaky = new RecentRepos(
      { find: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve({ id: 2 } as Repo)) },
      { now: () => 0 },
    );
    await expect(flaky.find(2)).rejects.toThrow('down');
    fail = false;
    expect((await flaky.find(2))?.id).toBe(2);
  });
});
