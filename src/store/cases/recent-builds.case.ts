import { describe, expect, it } from 'vitest';
import type { Build } from '../../core/build.js';
import { InvalidInputError } from '../../core/errors.js';
import type { Status } from '../../core/status.js';
import { newBuild, newRepo, useStore, type OpenFreshStore } from './fixtures.case.js';

const STATUS_CYCLE: Status[] = ['success', 'failure', 'success', 'error', 'killed'];

/** BuildStore.recentOf: each repository's last builds, for the start page's sparklines. */
export function recentBuildsContract(open: OpenFreshStore): void {
  describe('recent builds of many repositories', () => {
    const store = useStore(open);

    /** `count` builds of the repository, each with its own status and times; returns them in order. */
    async function builds(repoId: number, count: number): Promise<Build[]> {
      const created: Build[] = [];
      for (let i = 0; i < count; i++) {
        const started = 1_700_000_000_000 + i * 60_000;
        const status = STATUS_CYCLE[i % STATUS_CYCLE.length] ?? 'success';
        const input = newBuild(repoId, { status, started, finished: started + (i + 1) * 1_000 });
        created.push((await store().builds.create(input, [])).build);
      }
      return created;
    }

    const summary = ({ number, status, started, finished }: Build) => ({ number, status, started, finished });

    it('answers each repository’s last builds, newest first, in one call; those without builds are left out', async () => {
      const [busy, quiet, empty] = await Promise.all(
        Array.from({ length: 3 }, () => store().repos.create(newRepo())),
      );
      if (!busy || !quiet || !empty) throw new Error('three repositories');
      const busyBuilds = await builds(busy.id, 25);
      const quietBuilds = await builds(quiet.id, 2);
      // A running build has not finished, a pending one has not started either.
      const running = await store().builds.create(
        newBuild(busy.id, { status: 'running', started: 1_700_002_000_000 }),
        [],
      );
      const pending = await store().builds.create(newBuild(quiet.id, { status: 'pending' }), []);
      // A deleted build leaves a gap in the numbers: the next older one takes its place.
      await store().builds.delete(busyBuilds[20]?.id ?? 0);

      const recent = await store().builds.recentOf([busy.id, quiet.id, empty.id, busy.id], 20);
      expect([...recent.keys()].sort((a, b) => a - b)).toEqual([busy.id, quiet.id].sort((a, b) => a - b));
      const busyRecent = recent.get(busy.id);
      expect(busyRecent?.map((build) => build.number)).toEqual([
        26, 25, 24, 23, 22, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
      ]);
      expect(busyRecent?.[0]).toEqual({
        number: 26,
        status: 'running',
        started: running.build.started,
        finished: 0,
      });
      expect(busyRecent?.slice(1)).toEqual(
        busyBuilds
          .filter((build) => build.number !== 21)
          .reverse()
          .slice(0, 19)
          .map(summary),
      );
      expect(recent.get(quiet.id)).toEqual([
        { number: 3, status: 'pending', started: 0, finished: 0 },
        ...[...quietBuilds].reverse().map(summary),
      ]);
      expect(pending.build.number).toBe(3);

      const newestOnly = await store().builds.recentOf([busy.id, quiet.id], 1);
      expect(newestOnly.get(busy.id)?.map((build) => build.number)).toEqual([26]);
      expect(newestOnly.get(quiet.id)?.map((build) => build.number)).toEqual([3]);
      expect(await store().builds.recentOf([], 20)).toEqual(new Map());
    });

    it('answers for more repositories than one statement lists (groups of 500)', async () => {
      const repos = await Promise.all(Array.from({ length: 3 }, () => store().repos.create(newRepo())));
      for (const repo of repos) await builds(repo.id, 3);
      // 1,200 ids, most of them of no repository: three groups, the real ones spread over them.
      const asked = Array.from({ length: 1_200 }, (_, i) => 10_000_000 + i);
      for (const [at, repo] of [0, 600, 1_199].map((at, k) => [at, repos[k]] as const)) {
        if (repo !== undefined) asked[at] = repo.id;
      }
      const recent = await store().builds.recentOf(asked, 2);
      expect([...recent.keys()].sort((a, b) => a - b)).toEqual(
        repos.map((repo) => repo.id).sort((a, b) => a - b),
      );
      for (const builds of recent.values()) expect(builds.map((build) => build.number)).toEqual([3, 2]);
    });

    it('refuses a count that is not a whole number of at least 1', async () => {
      await expect(store().builds.recentOf([1], 0)).rejects.toThrow(InvalidInputError);
      await expect(store().builds.recentOf([1], 2.5)).rejects.toThrow(InvalidInputError);
    });
  });
}
