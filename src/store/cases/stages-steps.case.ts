import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, StaleVersionError } from '../../core/errors.js';
import type { Store } from '../../core/store.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

async function buildWithStages(store: Store, count: number) {
  const repo = await store.repos.create(newRepo());
  return store.builds.create(
    newBuild(repo.id),
    Array.from({ length: count }, (_, i) => newStage(i + 1)),
  );
}

/** StageStore and StepStore: lookups, status queue, first-runner-wins updates, step numbering. */
export function stagesStepsContract(open: OpenFreshStore): void {
  describe('stages', () => {
    const store = useStore(open);

    it('finds a stage by id and by build and number', async () => {
      const { build, stages } = await buildWithStages(store(), 2);
      const second = stages[1];
      expect(await store().stages.find(second?.id ?? 0)).toEqual(second);
      expect(await store().stages.findNumber(build.id, 2)).toEqual(second);
      expect(await store().stages.findNumber(build.id, 3)).toBeUndefined();
    });

    it('answers finds and lists asked for at the same time (read together), each with its own object', async () => {
      const a = await buildWithStages(store(), 3);
      const b = await buildWithStages(store(), 1);
      const ids = [...a.stages, ...b.stages].map((s) => s.id);
      const [found, again, missing, listA, listB, listNone] = await Promise.all([
        Promise.all(ids.map((id) => store().stages.find(id))),
        store().stages.find(ids[0] ?? 0),
        store().stages.find(999_999),
        store().stages.list(a.build.id),
        store().stages.list(b.build.id),
        store().stages.list(999_999),
      ]);
      expect(found).toEqual([...a.stages, ...b.stages]);
      expect(again).toEqual(found[0]);
      expect(again).not.toBe(found[0]);
      expect(missing).toBeUndefined();
      expect(listA).toEqual(a.stages);
      expect(listB).toEqual(b.stages);
      expect(listNone).toEqual([]);
    });

    it('lists the stages of a status, oldest first', async () => {
      const before = new Set((await store().stages.listStatus('pending')).map((s) => s.id));
      const a = await buildWithStages(store(), 2);
      const b = await buildWithStages(store(), 1);
      await store().stages.update({ ...(a.stages[0] ?? failure()), status: 'running' });
      const pending = (await store().stages.listStatus('pending')).filter((s) => !before.has(s.id));
      expect(pending.map((s) => s.id)).toEqual([a.stages[1]?.id, b.stages[0]?.id]);
      expect((await store().stages.listStatus('running')).map((s) => s.id)).toContain(a.stages[0]?.id);
    });

    it('lets exactly one of two runners accepting the same stage win', async () => {
      const { stages } = await buildWithStages(store(), 1);
      const stage = stages[0] ?? failure();
      const results = await Promise.allSettled(
        ['runner-a', 'runner-b'].map((machine) =>
          store().stages.update({
            ...stage,
            status: 'running',
            machine,
            started: Date.now(),
            heartbeat: Date.now(),
          }),
        ),
      );
      const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(StaleVersionError);
      expect(await store().stages.find(stage.id)).toEqual(won[0]);
      expect(won[0]?.version).toBe(2);
    });

    it('ends a taken stage in one conditional write: one of two ends of a version wins', async () => {
      const { stages } = await buildWithStages(store(), 1);
      const queued = stages[0] ?? failure();
      const end = { status: 'success' as const, error: '', exitCode: 0, started: 0, stopped: 2000, at: 3000 };
      // Not taken by a runner yet: nothing written.
      expect(await store().stages.end(queued.id, queued.version, end)).toBeUndefined();
      const taken = await store().stages.update({ ...queued, machine: 'runner-a', started: 1000 });
      const results = await Promise.all([
        store().stages.end(taken.id, taken.version, end),
        store().stages.end(taken.id, taken.version, { ...end, status: 'failure', exitCode: 1 }),
      ]);
      const won = results.filter((stage) => stage !== undefined);
      expect(won).toHaveLength(1);
      expect(won[0]).toMatchObject({
        started: 1000,
        stopped: 2000,
        heartbeat: 3000,
        version: taken.version + 1,
      });
      expect(await store().stages.find(taken.id)).toEqual(won[0]);
      // Done: even its current version is refused; a stale version and a missing stage too.
      expect(await store().stages.end(taken.id, taken.version + 1, end)).toBeUndefined();
      expect(await store().stages.end(taken.id, taken.version, end)).toBeUndefined();
      expect(await store().stages.end(999_999, 1, end)).toBeUndefined();
    });

    it('ends a stage for the runner named as its holder only, with and without a start', async () => {
      const { stages } = await buildWithStages(store(), 2);
      const [a, b] = await Promise.all(
        stages.map((stage) => store().stages.update({ ...stage, machine: 'runner-a' })),
      );
      if (a === undefined || b === undefined) failure();
      const end = { status: 'success' as const, error: '', exitCode: 0, started: 0, stopped: 2000, at: 3000 };
      for (const [stage, started] of [
        [a, 0],
        [b, 1500],
      ] as const) {
        expect(
          await store().stages.end(stage.id, stage.version, { ...end, started }, 'runner-b'),
        ).toBeUndefined();
        expect(await store().stages.find(stage.id)).toEqual(stage);
        const ended = await store().stages.end(stage.id, stage.version, { ...end, started }, 'runner-a');
        expect(ended).toMatchObject({ status: 'success', machine: 'runner-a', version: stage.version + 1 });
      }
    });

    it('ends a stage that never started as started at the report, or at the start reported', async () => {
      const { stages } = await buildWithStages(store(), 2);
      const [a, b] = await Promise.all(
        stages.map((stage) => store().stages.update({ ...stage, machine: 'runner-a' })),
      );
      const end = {
        status: 'error' as const,
        error: 'boom',
        exitCode: 2,
        started: 0,
        stopped: 2000,
        at: 3000,
      };
      const first = await store().stages.end(a?.id ?? 0, a?.version ?? 0, end);
      expect(first).toMatchObject({ status: 'error', error: 'boom', exitCode: 2, started: 3000 });
      const second = await store().stages.end(b?.id ?? 0, b?.version ?? 0, { ...end, started: 1500 });
      expect(second).toMatchObject({ started: 1500, stopped: 2000, machine: 'runner-a' });
    });

    it('round-trips labels and dependencies, and says NotFoundError for a deleted stage', async () => {
      const { build, stages } = await buildWithStages(store(), 1);
      const stage = stages[0] ?? failure();
      const updated = await store().stages.update({
        ...stage,
        labels: { 'kubernetes.io/arch': 'arm64', emoji: '🚀' },
        dependsOn: ['lint', 'test'],
        exitCode: 78,
        errIgnore: true,
      });
      expect(await store().stages.find(stage.id)).toEqual(updated);
      await store().builds.delete(build.id);
      await expect(store().stages.update(updated)).rejects.toThrow(NotFoundError);
    });
  });

  describe('steps', () => {
    const store = useStore(open);

    it('finds steps by id and by stage and number, and lists them by number', async () => {
      const { stages } = await buildWithStages(store(), 1);
      const stageId = stages[0]?.id ?? 0;
      const steps = await store().steps.list(stageId);
      expect(steps.map((s) => s.number)).toEqual([1, 2]);
      expect(await store().steps.find(steps[1]?.id ?? 0)).toEqual(steps[1]);
      expect(await store().steps.findNumber(stageId, 1)).toEqual(steps[0]);
      expect(await store().steps.findNumber(stageId, 9)).toBeUndefined();
    });

    it('answers lists asked for at the same time (read together), each with its own objects', async () => {
      const a = await buildWithStages(store(), 2);
      const b = await buildWithStages(store(), 1);
      const ids = [...a.stages, ...b.stages].map((s) => s.id);
      const alone = await Promise.all(ids.map(async (id) => store().steps.list(id)));
      const [together, again, none] = await Promise.all([
        Promise.all(ids.map((id) => store().steps.list(id))),
        store().steps.list(ids[0] ?? 0),
        store().steps.list(999_999),
      ]);
      expect(together).toEqual(alone);
      expect(together.map((steps) => steps.map((s) => s.number))).toEqual([
        [1, 2],
        [1, 2],
        [1, 2],
      ]);
      expect(again).toEqual(together[0]);
      expect(again).not.toBe(together[0]);
      expect(again[0]).not.toBe(together[0]?.[0]);
      expect(none).toEqual([]);
    });

    it('creates a step later, refusing a number the stage already has or a stage that does not exist', async () => {
      const { stages } = await buildWithStages(store(), 1);
      const stageId = stages[0]?.id ?? 0;
      const step = {
        stageId,
        number: 3,
        name: 'notify',
        status: 'pending' as const,
        error: '',
        errIgnore: false,
        exitCode: 0,
        image: 'plugins/slack',
        detached: true,
        dependsOn: ['step-1', 'step-2'],
        started: 0,
        stopped: 0,
      };
      const created = await store().steps.create(step);
      expect(created).toMatchObject({ ...step, version: 1 });
      expect(await store().steps.find(created.id)).toEqual(created);
      const duplicate = store().steps.create({ ...step, name: 'again' });
      await expect(duplicate).rejects.toThrow(ConflictError);
      await expect(duplicate).rejects.toThrow(`stage ${stageId} already has a step number 3`);
      await expect(store().steps.create({ ...step, stageId: 999_999 })).rejects.toThrow(NotFoundError);
    });

    it('updates with optimistic locking', async () => {
      const { stages } = await buildWithStages(store(), 1);
      const [step] = await store().steps.list(stages[0]?.id ?? 0);
      const current = step ?? failure();
      const done = await store().steps.update({ ...current, status: 'success', exitCode: 0, stopped: 5 });
      expect(done.version).toBe(2);
      await expect(store().steps.update({ ...current, status: 'failure' })).rejects.toThrow(
        StaleVersionError,
      );
      expect(await store().steps.find(current.id)).toEqual(done);
    });
  });
}

function failure(): never {
  throw new Error('expected fixture data is missing');
}
