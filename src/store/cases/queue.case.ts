import { describe, expect, it } from 'vitest';
import { StaleVersionError } from '../../core/errors.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

/** QueueStore: queued stages with their filter facts, takes, heartbeats without versions, stale stages. */
export function queueContract(open: OpenFreshStore): void {
  describe('queue', () => {
    const store = useStore(open);

    it('lists pending stages no runner took, oldest first, with repository, event and active count', async () => {
      const repo = await store().repos.create(newRepo({ trusted: true }));
      const { stages } = await store().builds.create(newBuild(repo.id, { event: 'tag' }), [
        newStage(1, 0, { name: 'build', limit: 1 }),
        newStage(2, 0, { name: 'test', status: 'waiting_on_dependencies' }),
        newStage(3, 0, { name: 'deploy' }),
      ]);
      const [first, , third] = stages;
      if (first === undefined || third === undefined) throw new Error('no stages');
      // Another build's stage of the same pipeline name is running: it counts against `limit`.
      const other = await store().builds.create(newBuild(repo.id), [newStage(1, 0, { name: 'build' })]);
      const running = other.stages[0];
      if (running === undefined) throw new Error('no stage');
      await store().stages.update({ ...running, status: 'running', machine: 'runner-1' });

      const queued = (await store().queue.listQueued()).filter((q) => q.stage.repoId === repo.id);
      expect(queued.map((q) => q.stage.id)).toEqual([first.id, third.id]);
      expect(queued[0]).toMatchObject({
        repo: { slug: repo.slug, trusted: true },
        build: { event: 'tag' },
        active: 1,
      });
      expect(queued[1]?.active).toBe(0);
    });

    it('leaves out a pending stage once a runner took it', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, 0)]);
      const stage = stages[0];
      if (stage === undefined) throw new Error('no stage');
      await store().stages.update({ ...stage, machine: 'runner-1' });
      const queued = await store().queue.listQueued();
      expect(queued.some((q) => q.stage.id === stage.id)).toBe(false);
    });

    it('takes a queued stage for a runner in one write: one of two takes wins, then it is no longer queued', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, 0)]);
      const stage = stages[0];
      if (stage === undefined) throw new Error('no stage');
      const [a, b] = await Promise.all([
        store().queue.take(stage.id, 'runner-a', 7_000),
        store().queue.take(stage.id, 'runner-b', 7_000),
      ]);
      const won = a ?? b;
      expect([a, b].filter((taken) => taken !== undefined)).toHaveLength(1);
      expect(won).toMatchObject({
        ...stage,
        updated: expect.any(Number) as number,
        machine: a ? 'runner-a' : 'runner-b',
        heartbeat: 7_000,
        version: 2,
      });
      expect(won?.updated).toBeGreaterThanOrEqual(stage.updated);
      expect(await store().stages.find(stage.id)).toEqual(won);
      expect((await store().queue.listQueued()).some((q) => q.stage.id === stage.id)).toBe(false);
      // Taken already, also by the same runner: nothing changes.
      expect(await store().queue.take(stage.id, won?.machine ?? '', 8_000)).toBeUndefined();
      expect(await store().stages.find(stage.id)).toEqual(won);
      // A stale writer of the version before the take loses.
      await expect(store().stages.update({ ...stage, machine: 'runner-c' })).rejects.toThrow(
        StaleVersionError,
      );
    });

    it('queues again a stage its runner took and never started, only for that runner and version', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, 0), newStage(2, 0)]);
      const [stage, started] = stages;
      if (stage === undefined || started === undefined) throw new Error('no stages');
      const taken = await store().queue.take(stage.id, 'runner-a', 7_000);
      if (taken === undefined) throw new Error('not taken');
      expect(await store().queue.requeue(stage.id, 'runner-b', taken.version)).toBeUndefined();
      expect(await store().queue.requeue(stage.id, 'runner-a', taken.version - 1)).toBeUndefined();
      expect(await store().queue.requeue(stage.id, '', taken.version)).toBeUndefined();
      expect(await store().stages.find(stage.id)).toEqual(taken);

      const queued = await store().queue.requeue(stage.id, 'runner-a', taken.version);
      expect(queued).toEqual({
        ...taken,
        machine: '',
        heartbeat: 0,
        version: taken.version + 1,
        updated: expect.any(Number) as number,
      });
      expect(await store().stages.find(stage.id)).toEqual(queued);
      expect((await store().queue.listQueued()).some((q) => q.stage.id === stage.id)).toBe(true);
      // The runner that took it reports late: its version is stale.
      await expect(store().stages.update({ ...taken, status: 'running' })).rejects.toThrow(StaleVersionError);
      // Once given back, nothing to give back; a started stage is never given back.
      expect(await store().queue.requeue(stage.id, 'runner-a', taken.version)).toBeUndefined();
      const running = await store().stages.update({ ...started, status: 'running', machine: 'runner-a' });
      expect(await store().queue.requeue(started.id, 'runner-a', running.version)).toBeUndefined();
      expect(await store().queue.requeue(999_999, 'runner-a', 1)).toBeUndefined();
    });

    it('takes only pending stages without a concurrency limit, and nothing that does not exist', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [
        newStage(1, 0, { limit: 1 }),
        newStage(2, 0, { status: 'waiting_on_dependencies' }),
        newStage(3, 0, { status: 'killed' }),
      ]);
      for (const stage of stages) {
        expect(await store().queue.take(stage.id, 'runner-a', 7_000)).toBeUndefined();
        expect(await store().stages.find(stage.id)).toEqual(stage);
      }
      expect(await store().queue.take(999_999, 'runner-a', 7_000)).toBeUndefined();
    });

    it('records heartbeats of taken stages without changing their version, and lists stale ones', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [newStage(1, 0), newStage(2, 0)]);
      const [taken, free] = stages;
      if (taken === undefined || free === undefined) throw new Error('no stages');
      const updated = await store().stages.update({ ...taken, status: 'running', machine: 'runner-1' });

      expect(await store().queue.beat(taken.id, 5_000)).toBe(true);
      expect(await store().queue.beat(taken.id, 5_000)).toBe(true);
      expect(await store().queue.beat(free.id, 5_000)).toBe(false);
      expect(await store().queue.beat(999_999, 5_000)).toBe(false);
      const found = await store().stages.find(taken.id);
      expect(found).toMatchObject({ heartbeat: 5_000, version: updated.version });

      const stale = async (before: number) =>
        (await store().queue.listStale(before)).filter((s) => s.repoId === repo.id).map((s) => s.id);
      expect(await stale(5_000)).toEqual([]);
      expect(await stale(5_001)).toEqual([taken.id]);
      await store().stages.update({ ...updated, status: 'success' });
      expect(await store().queue.beat(taken.id, 6_000)).toBe(false);
      expect(await stale(10_000)).toEqual([]);
    });

    it('takes a limited stage only below its pipeline’s limit, one winner among concurrent takes', async () => {
      const repo = await store().repos.create(newRepo());
      const limited = (number: number) => newStage(number, 0, { name: 'deploy', limit: 1 });
      const { stages } = await store().builds.create(newBuild(repo.id), [limited(1), limited(2), limited(3)]);
      const ids = stages.map((s) => s.id);
      // Three runners try three stages of the same pipeline at once: the limit of 1 lets one through.
      const results = await Promise.all(
        ids.map((id, i) => store().queue.takeLimited(id, `runner-${i}`, 9_000)),
      );
      const taken = results.filter((r) => r !== undefined && 'stage' in r);
      expect(taken).toHaveLength(1);
      expect(results.filter((r) => r !== undefined && 'active' in r)).toEqual([{ active: 1 }, { active: 1 }]);
      const winner = taken[0] && 'stage' in taken[0] ? taken[0].stage : undefined;
      expect(winner).toMatchObject({ heartbeat: 9_000, version: (stages[0]?.version ?? 0) + 1 });
      expect(winner?.machine).toMatch(/^runner-\d$/);
      // Taken is not queued; gone is not queued; a finished stage frees the pipeline's place.
      expect(await store().queue.takeLimited(winner?.id ?? 0, 'late', 9_500)).toBeUndefined();
      expect(await store().queue.takeLimited(999_999, 'late', 9_500)).toBeUndefined();
      const held = await store().stages.find(winner?.id ?? 0);
      if (held === undefined) throw new Error('the taken stage is gone');
      await store().stages.update({ ...held, status: 'success' });
      const next = ids.find((id) => id !== winner?.id) ?? 0;
      expect(await store().queue.takeLimited(next, 'runner-next', 10_000)).toMatchObject({
        stage: { id: next, machine: 'runner-next' },
      });
    });

    it('records heartbeats of several taken stages in one write, and of nothing else', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [
        newStage(1, 0),
        newStage(2, 0),
        newStage(3, 0),
        newStage(4, 0),
      ]);
      const [running, accepted, done, other] = stages;
      if (!running || !accepted || !done || !other) throw new Error('no stages');
      await store().stages.update({ ...running, status: 'running', machine: 'beating' });
      await store().stages.update({ ...accepted, machine: 'beating' });
      await store().stages.update({ ...done, status: 'success', machine: 'beating', heartbeat: 1 });
      await store().stages.update({ ...other, status: 'running', machine: 'another', heartbeat: 1 });

      // The finished one and the one not named are left alone.
      expect(await store().queue.beatStages([running.id, accepted.id, done.id], 8_000)).toBe(2);
      const heartbeats = await Promise.all(
        stages.map(async (s) => (await store().stages.find(s.id))?.heartbeat),
      );
      expect(heartbeats).toEqual([8_000, 8_000, 1, 1]);
      expect(await store().queue.beatStages([999_999], 8_000)).toBe(0);
      expect(await store().queue.beatStages([], 8_000)).toBe(0);
    });

    it('keeps the pause switch: 0 at first, the time of the pause, 0 again on resume', async () => {
      expect(await store().queue.pausedSince()).toBe(0);
      await store().queue.setPaused(1_700_000_000_123);
      expect(await store().queue.pausedSince()).toBe(1_700_000_000_123);
      await store().queue.setPaused(0);
      expect(await store().queue.pausedSince()).toBe(0);
    });

    it('counts the running builds of a throttled repository, and whether the stage’s own build is one', async () => {
      const repo = await store().repos.create(newRepo({ throttle: 1 }));
      const running = await store().builds.create(newBuild(repo.id), [
        newStage(1, 0, { name: 'a' }),
        newStage(2, 0, { name: 'b' }),
      ]);
      const waiting = await store().builds.create(newBuild(repo.id), [newStage(1, 0)]);
      const [taken, sibling] = running.stages;
      if (taken === undefined || sibling === undefined) throw new Error('no stages');
      await store().stages.update({ ...taken, machine: 'runner-1' });
      const free = await store().repos.create(newRepo());
      await store().builds.create(newBuild(free.id), [newStage(1, 0)]);

      const queued = await store().queue.listQueued();
      const of = (id: number | undefined) => queued.find((q) => q.stage.id === id);
      expect(of(sibling.id)).toMatchObject({
        repo: { throttle: 1 },
        running: { builds: 1, thisBuild: true },
      });
      expect(of(waiting.stages[0]?.id)).toMatchObject({ running: { builds: 1, thisBuild: false } });
      expect(queued.find((q) => q.stage.repoId === free.id)).toMatchObject({
        repo: { throttle: 0 },
        running: { builds: 0, thisBuild: false },
      });
      // The same facts when the taken stage comes first in the read (GET /api/queue).
      const incomplete = await store().queue.listIncomplete();
      expect(incomplete.find((q) => q.stage.id === waiting.stages[0]?.id)).toMatchObject({
        running: { builds: 1, thisBuild: false },
      });
    });

    it('lists the incomplete stages (queued, taken, running) and counts the stages each runner holds', async () => {
      const repo = await store().repos.create(newRepo());
      const { stages } = await store().builds.create(newBuild(repo.id), [
        newStage(1, 0),
        newStage(2, 0),
        newStage(3, 0),
        newStage(4, 0, { status: 'waiting_on_dependencies' }),
        newStage(5, 0, { status: 'success' }),
      ]);
      const [queued, taken, running] = stages;
      if (queued === undefined || taken === undefined || running === undefined) throw new Error('no stages');
      await store().stages.update({ ...taken, machine: 'runner-q1' });
      await store().stages.update({ ...running, status: 'running', machine: 'runner-q1' });

      const incomplete = (await store().queue.listIncomplete()).filter((q) => q.stage.repoId === repo.id);
      expect(incomplete.map((q) => q.stage.id)).toEqual([queued.id, taken.id, running.id]);
      expect(incomplete[0]).toMatchObject({ repo: { slug: repo.slug }, build: { event: 'push' } });
      const held = await store().queue.takenBy();
      expect(held.get('runner-q1')).toBe(2);
      expect(held.has('')).toBe(false);
    });
  });
}
