import { describe, expect, it } from 'vitest';
import { InvalidInputError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import { newBuild, newRepo, newStage, newUser, useStore, type OpenFreshStore } from './fixtures.case.js';

/** BuildStore: creation with stages and steps, numbering, listing, optimistic locking, deletion. */
export function buildsContract(open: OpenFreshStore): void {
  describe('builds', () => {
    const store = useStore(open);

    it('creates a build with its stages and steps in one go, numbered from the repository counter', async () => {
      const repo = await store().repos.create(newRepo());
      const input = newBuild(repo.id, { params: { DEPLOY_ENV: 'prod', 'with space': 'ü ✓' }, debug: true });
      const stages = [
        newStage(1, 2, { labels: { gpu: 'yes' } }),
        newStage(2, 1, { dependsOn: ['stage-1'], status: 'waiting_on_dependencies' }),
      ];
      const before = Date.now();
      const created = await store().builds.create(input, stages);

      expect(created.build).toMatchObject({ ...input, number: 1, version: 1 });
      expect(created.build.created).toBeGreaterThanOrEqual(before);
      expect(await store().builds.find(created.build.id)).toEqual(created.build);
      expect(await store().builds.findNumber(repo.id, 1)).toEqual(created.build);
      expect(created.stages).toHaveLength(2);
      expect(created.stages[0]).toMatchObject({
        ...stages[0]?.stage,
        repoId: repo.id,
        buildId: created.build.id,
        version: 1,
      });
      expect(await store().stages.list(created.build.id)).toEqual(created.stages);
      const withSteps = await store().stages.listWithSteps(created.build.id);
      expect(withSteps.map((s) => s.steps.map((step) => step.name))).toEqual([
        ['step-1', 'step-2'],
        ['step-1'],
      ]);
      expect(withSteps[0]?.steps[1]).toMatchObject({
        dependsOn: ['step-1'],
        stageId: created.stages[0]?.id,
        version: 1,
      });
      expect((await store().repos.find(repo.id))?.counter).toBe(1);
    });

    it('keeps what a build’s paths conditions read, 3,000 changed files included, through updates', async () => {
      const repo = await store().repos.create(newRepo());
      const files = Array.from({ length: 3000 }, (_, i) => `packages/p${i}/src/index-${i}.ts`);
      const changedFiles = { files, skipped: ['docs', 'lint'] };
      const { build } = await store().builds.create(newBuild(repo.id, { changedFiles }), []);
      expect((await store().builds.find(build.id))?.changedFiles).toEqual(changedFiles);
      const updated = await store().builds.update({ ...build, status: 'running' });
      expect((await store().builds.find(updated.id))?.changedFiles).toEqual(changedFiles);
      const unknown = { unknown: 'a tag build has no changed files to compare', skipped: [] };
      const other = await store().builds.create(newBuild(repo.id, { changedFiles: unknown }), []);
      expect((await store().builds.find(other.build.id))?.changedFiles).toEqual(unknown);
      const none = await store().builds.create(newBuild(repo.id), []);
      expect((await store().builds.find(none.build.id))?.changedFiles).toBeUndefined();
    });

    it('hands out numbers 1..10 to ten concurrent creations, without duplicates', async () => {
      const repo = await store().repos.create(newRepo());
      const created = await Promise.all(
        Array.from({ length: 10 }, () => store().builds.create(newBuild(repo.id), [newStage(1, 1)])),
      );
      expect(created.map((c) => c.build.number).sort((a, b) => a - b)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      expect((await store().repos.find(repo.id))?.counter).toBe(10);
    });

    it('creates the first builds of ten repositories at the same time (no deadlock on the latest index)', async () => {
      const repos = await Promise.all(Array.from({ length: 10 }, () => store().repos.create(newRepo())));
      const created = await Promise.all(
        repos.map((repo) =>
          store().builds.create(newBuild(repo.id, { ref: 'refs/heads/main' }), [newStage(1, 1)]),
        ),
      );
      expect(created.map((c) => c.build.number)).toEqual(repos.map(() => 1));
      const again = await Promise.all(
        repos.map((repo) => store().builds.create(newBuild(repo.id, { ref: 'refs/heads/main' }), [])),
      );
      expect(again.map((c) => c.build.number)).toEqual(repos.map(() => 2));
    });

    it('answers finds asked for at the same time (read together), each with its own object', async () => {
      const repo = await store().repos.create(newRepo());
      const a = await store().builds.create(newBuild(repo.id, { params: { A: '1' } }), [newStage(1, 0)]);
      const b = await store().builds.create(newBuild(repo.id), [newStage(1, 0)]);
      const [foundA, foundB, again, missing] = await Promise.all([
        store().builds.find(a.build.id),
        store().builds.find(b.build.id),
        store().builds.find(a.build.id),
        store().builds.find(999_999),
      ]);
      expect(foundA).toEqual(a.build);
      expect(foundB).toEqual(b.build);
      expect(again).toEqual(a.build);
      expect(again).not.toBe(foundA);
      expect(again?.params).not.toBe(foundA?.params);
      expect(missing).toBeUndefined();
    });

    it('lists a repository’s builds newest first, a page at a time', async () => {
      const repo = await store().repos.create(newRepo());
      for (let i = 0; i < 5; i++) await store().builds.create(newBuild(repo.id), []);
      const first = await store().builds.list(repo.id, { page: 1, perPage: 2 });
      const third = await store().builds.list(repo.id, { page: 3, perPage: 2 });
      expect(first.map((b) => b.number)).toEqual([5, 4]);
      expect(third.map((b) => b.number)).toEqual([1]);
      expect(await store().builds.list(repo.id, { page: 4, perPage: 2 })).toEqual([]);
      await expect(store().builds.list(repo.id, { page: 0, perPage: 2 })).rejects.toThrow(InvalidInputError);
    });

    it('answers the newest build of each of many repositories, those that have one', async () => {
      const repos = await Promise.all(Array.from({ length: 3 }, () => store().repos.create(newRepo())));
      const [busy, quiet, empty] = repos;
      if (!busy || !quiet || !empty) throw new Error('three repositories');
      for (let i = 0; i < 3; i++) await store().builds.create(newBuild(busy.id), []);
      const only = await store().builds.create(newBuild(quiet.id, { ref: 'refs/heads/dev' }), []);
      const newest = await store().builds.newestOf([busy.id, quiet.id, empty.id, busy.id]);
      expect([...newest.keys()].sort((a, b) => a - b)).toEqual([busy.id, quiet.id].sort((a, b) => a - b));
      const [listedFirst] = await store().builds.list(busy.id, { page: 1, perPage: 3 });
      expect(newest.get(busy.id)).toEqual(listedFirst);
      expect(newest.get(busy.id)?.number).toBe(3);
      expect(newest.get(quiet.id)).toEqual(only.build);
      expect(await store().builds.newestOf([])).toEqual(new Map());
    });

    it('answers the newest builds of more repositories than one statement lists (groups of 500)', async () => {
      const repos = await Promise.all(Array.from({ length: 3 }, () => store().repos.create(newRepo())));
      const ids = repos.map((repo) => repo.id);
      for (const id of ids) await store().builds.create(newBuild(id), []);
      // 1,200 ids, most of them of no repository: three groups, the real ones spread over them.
      const asked = Array.from({ length: 1_200 }, (_, i) => 10_000_000 + i);
      asked[0] = ids[0]!;
      asked[600] = ids[1]!;
      asked[1_199] = ids[2]!;
      const newest = await store().builds.newestOf(asked);
      expect([...newest.keys()].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    });

    it('lists the builds of one git ref', async () => {
      const repo = await store().repos.create(newRepo());
      await store().builds.create(newBuild(repo.id, { ref: 'refs/heads/main' }), []);
      await store().builds.create(newBuild(repo.id, { ref: 'refs/heads/dev' }), []);
      await store().builds.create(newBuild(repo.id, { ref: 'refs/heads/main' }), []);
      const main = await store().builds.list(repo.id, { page: 1, perPage: 10 }, { ref: 'refs/heads/main' });
      expect(main.map((b) => b.number)).toEqual([3, 1]);
      expect(await store().builds.list(repo.id, { page: 1, perPage: 10 }, { ref: 'refs/heads/x' })).toEqual(
        [],
      );
    });

    it('purges the done builds numbered below a number, with their stages, and counts them', async () => {
      const repo = await store().repos.create(newRepo());
      const first = await store().builds.create(newBuild(repo.id, { status: 'success' }), [newStage(1)]);
      await store().builds.create(newBuild(repo.id, { status: 'running' }), []);
      await store().builds.create(newBuild(repo.id, { status: 'failure' }), []);
      await store().builds.create(newBuild(repo.id, { status: 'success' }), []);
      const steps = await store().steps.list(first.stages[0]?.id ?? 0);
      expect(steps.length).toBeGreaterThan(0);
      const purged = await store().builds.purge(repo.id, 4);
      expect(purged.builds).toBe(2);
      expect([...purged.steps].sort((a, b) => a - b)).toEqual(
        steps.map((step) => step.id).sort((a, b) => a - b),
      );
      const left = await store().builds.list(repo.id, { page: 1, perPage: 10 });
      expect(left.map((b) => b.number)).toEqual([4, 2]);
      expect(await store().stages.list(first.build.id)).toEqual([]);
    });

    it('finds the newest build of a branch, of a ref, or of any kind', async () => {
      const repo = await store().repos.create(newRepo());
      const other = await store().repos.create(newRepo());
      expect(await store().builds.findLatest(repo.id, {})).toBeUndefined();
      const main1 = await store().builds.create(newBuild(repo.id, { status: 'failure' }), []);
      const main2 = await store().builds.create(newBuild(repo.id, { status: 'success' }), []);
      const dev = await store().builds.create(
        newBuild(repo.id, { ref: 'refs/heads/dev', source: 'dev' }),
        [],
      );
      const pull = await store().builds.create(
        newBuild(repo.id, { event: 'pull_request', ref: 'refs/pull/7/head', source: 'dev', target: 'main' }),
        [],
      );
      await store().builds.create(newBuild(other.id), []);
      expect(main1.build.number).toBeLessThan(main2.build.number);
      expect(await store().builds.findLatest(repo.id, { branch: 'main' })).toEqual(main2.build);
      expect(await store().builds.findLatest(repo.id, { ref: 'refs/heads/dev' })).toEqual(dev.build);
      expect(await store().builds.findLatest(repo.id, { ref: 'refs/pull/7/head' })).toEqual(pull.build);
      expect(await store().builds.findLatest(repo.id, {})).toEqual(pull.build);
      // The branch wins over the ref, as in Drone.
      expect(await store().builds.findLatest(repo.id, { branch: 'dev', ref: 'refs/heads/main' })).toEqual(
        dev.build,
      );
      expect(await store().builds.findLatest(repo.id, { branch: 'nope' })).toBeUndefined();
    });

    it('keeps the newest build of each branch, pull request and deployment target; a name can be taken off', async () => {
      const repo = await store().repos.create(newRepo());
      const main1 = await store().builds.create(newBuild(repo.id), []);
      const dev = await store().builds.create(
        newBuild(repo.id, { ref: 'refs/heads/dev', target: 'dev' }),
        [],
      );
      const main2 = await store().builds.create(newBuild(repo.id), []);
      const pull = await store().builds.create(
        newBuild(repo.id, { event: 'pull_request', ref: 'refs/pull/7/head', source: 'dev', target: 'main' }),
        [],
      );
      const prod = await store().builds.create(
        newBuild(repo.id, { event: 'promote', deployTo: 'production' }),
        [],
      );
      const back = await store().builds.create(
        newBuild(repo.id, { event: 'rollback', deployTo: 'production' }),
        [],
      );
      await store().builds.create(newBuild(repo.id, { event: 'tag', ref: 'refs/tags/v1' }), []);
      const numbers = async (kind: 'branch' | 'pull_request' | 'deployment'): Promise<number[]> =>
        (await store().builds.listLatest(repo.id, kind)).map((build) => build.number);
      expect(main1.build.number).toBeLessThan(main2.build.number);
      expect(await numbers('branch')).toEqual([main2.build.number, dev.build.number]);
      expect(await numbers('pull_request')).toEqual([pull.build.number]);
      expect(await numbers('deployment')).toEqual([back.build.number]);
      expect(prod.build.number).toBeLessThan(back.build.number);
      await store().builds.deleteLatest(repo.id, 'branch', 'dev');
      expect(await numbers('branch')).toEqual([main2.build.number]);
      expect(await store().builds.find(dev.build.id)).toEqual(dev.build);
      // A deleted build leaves its lists.
      await store().builds.delete(main2.build.id);
      expect(await numbers('branch')).toEqual([]);
    });

    it('lists the newest builds of the repositories a user may see, newest first', async () => {
      const user = await store().users.create(newUser());
      const mine = await store().repos.create(newRepo());
      const readable = await store().repos.create(newRepo());
      const revoked = await store().repos.create(newRepo());
      const foreign = await store().repos.create(newRepo());
      const perm = { userId: user.id, read: true, write: false, admin: false, synced: 1 };
      await store().perms.upsert({ ...perm, repoId: mine.id, write: true, admin: true });
      await store().perms.upsert({ ...perm, repoId: readable.id });
      await store().perms.upsert({ ...perm, repoId: revoked.id, read: false });
      const a = await store().builds.create(newBuild(mine.id), []);
      const b = await store().builds.create(newBuild(readable.id), []);
      await store().builds.create(newBuild(revoked.id), []);
      await store().builds.create(newBuild(foreign.id), []);
      const c = await store().builds.create(newBuild(mine.id), []);
      const recent = await store().builds.listRecent(user.id, 25);
      expect(recent.map((build) => build.id)).toEqual([c.build.id, b.build.id, a.build.id]);
      expect(recent[0]).toEqual(c.build);
      expect((await store().builds.listRecent(user.id, 2)).map((build) => build.id)).toEqual([
        c.build.id,
        b.build.id,
      ]);
      await expect(store().builds.listRecent(user.id, 0)).rejects.toThrow(InvalidInputError);
    });

    it('lists the builds that are not done, oldest first, and counts all builds', async () => {
      const repo = await store().repos.create(newRepo());
      const before = new Set((await store().builds.listIncomplete()).map((b) => b.id));
      const running = await store().builds.create(newBuild(repo.id, { status: 'running' }), []);
      await store().builds.create(newBuild(repo.id, { status: 'success' }), []);
      const blocked = await store().builds.create(newBuild(repo.id, { status: 'blocked' }), []);
      const incomplete = (await store().builds.listIncomplete()).filter((b) => !before.has(b.id));
      expect(incomplete.map((b) => b.id)).toEqual([running.build.id, blocked.build.id]);
      const count = await store().builds.count();
      expect(count).toBeGreaterThanOrEqual(3);
    });

    it('updates with optimistic locking: of two writers from the same version one wins', async () => {
      const repo = await store().repos.create(newRepo());
      const { build } = await store().builds.create(newBuild(repo.id), []);
      const results = await Promise.allSettled([
        store().builds.update({ ...build, status: 'running', started: 1000 }),
        store().builds.update({ ...build, status: 'killed', finished: 2000 }),
      ]);
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(won[0]?.version).toBe(2);
      expect(lost[0]).toBeInstanceOf(StaleVersionError);
      const stored = await store().builds.find(build.id);
      expect(stored).toEqual(won[0]);
    });

    it('says NotFoundError for a missing repository or a deleted build', async () => {
      await expect(store().builds.create(newBuild(999_999), [newStage(1)])).rejects.toThrow(NotFoundError);
      const repo = await store().repos.create(newRepo());
      const { build } = await store().builds.create(newBuild(repo.id), []);
      await store().builds.delete(build.id);
      await expect(store().builds.update(build)).rejects.toThrow(NotFoundError);
    });

    it('deletes its stages, steps and logs with it', async () => {
      const repo = await store().repos.create(newRepo());
      const { build, stages } = await store().builds.create(newBuild(repo.id), [newStage(1), newStage(2)]);
      const steps = await store().steps.list(stages[1]?.id ?? 0);
      const stepId = steps[0]?.id ?? 0;
      await store().logs.create(stepId, [{ pos: 0, out: 'line', time: 1 }]);
      await store().builds.delete(build.id);
      expect(await store().builds.find(build.id)).toBeUndefined();
      expect(await store().stages.list(build.id)).toEqual([]);
      expect(await store().steps.find(stepId)).toBeUndefined();
      expect(await store().logs.find(stepId)).toBeUndefined();
    });
  });
}
