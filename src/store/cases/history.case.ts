import { describe, expect, it } from 'vitest';
import type { RestoredBuild, RestoredStage } from '../../core/build-history.js';
import { ConflictError, InvalidInputError } from '../../core/errors.js';
import { newBuild, newRepo, newStage, useStore, type OpenFreshStore } from './fixtures.case.js';

const CREATED = 1_600_000_000_000;

function restoredBuild(
  repoId: number,
  number: number,
  overrides: Partial<RestoredBuild> = {},
): RestoredBuild {
  return {
    ...newBuild(repoId, { status: 'success', config: '', started: CREATED + 1000, finished: CREATED + 9000 }),
    number,
    created: CREATED + number,
    updated: CREATED + number + 10_000,
    ...overrides,
  };
}

function restoredStage(number: number): RestoredStage {
  const { stage, steps } = newStage(number, 2, { status: 'success', machine: 'drone-runner-1' });
  return {
    stage: { ...stage, created: CREATED, updated: CREATED + 5000 },
    steps: steps.map((step) => ({ ...step, status: 'success' as const, started: CREATED + 2000 })),
  };
}

/** BuildHistoryStore: finished builds of another server, numbers and times kept. */
export function historyContract(open: OpenFreshStore): void {
  describe('build history', () => {
    const store = useStore(open);

    it('restores a finished build with its number, times, stages and steps, leaving the counter alone', async () => {
      const repo = await store().repos.create(newRepo());
      const { build, steps } = await store().history.restore(restoredBuild(repo.id, 41), [restoredStage(1)]);
      expect(build).toMatchObject({ number: 41, created: CREATED + 41, status: 'success', version: 1 });
      expect(await store().builds.findNumber(repo.id, 41)).toEqual({ ...build, config: '' });
      const [stage] = await store().stages.listWithSteps(build.id);
      expect(stage).toMatchObject({
        number: 1,
        status: 'success',
        created: CREATED,
        machine: 'drone-runner-1',
      });
      expect(stage?.steps.map((step) => step.id)).toEqual(steps[0]?.map((step) => step.id));
      expect((await store().repos.find(repo.id))?.counter).toBe(0);
    });

    it('makes the newest restored build the head of its branch, never an older one', async () => {
      const repo = await store().repos.create(newRepo());
      await store().history.restore(restoredBuild(repo.id, 7), []);
      await store().history.restore(restoredBuild(repo.id, 3), []);
      expect((await store().builds.listLatest(repo.id, 'branch')).map((b) => b.number)).toEqual([7]);
    });

    it('refuses a number the repository has, and a build, stage or step that is not done', async () => {
      const repo = await store().repos.create(newRepo());
      await store().history.restore(restoredBuild(repo.id, 1), []);
      await expect(store().history.restore(restoredBuild(repo.id, 1), [])).rejects.toThrow(ConflictError);
      await expect(
        store().history.restore(restoredBuild(repo.id, 2, { status: 'running' }), []),
      ).rejects.toThrow(InvalidInputError);
      const pending = restoredStage(1);
      pending.stage.status = 'pending';
      await expect(store().history.restore(restoredBuild(repo.id, 3), [pending])).rejects.toThrow(
        InvalidInputError,
      );
      expect(await store().builds.findNumber(repo.id, 3)).toBeUndefined();
    });
  });
}
