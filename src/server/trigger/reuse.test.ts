import { describe, expect, it } from 'vitest';
import type { NewStageWithSteps } from '../../core/build.js';
import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import { newStage } from '../../store/cases/fixtures.case.js';
import { reuseStages, type EarlierStage } from './reuse.js';

function created(name: string, dependsOn: string[] = [], onSuccess = true): NewStageWithSteps {
  const status = dependsOn.length > 0 ? 'waiting_on_dependencies' : 'pending';
  return newStage(1, 0, { name, status, dependsOn, onSuccess, onFailure: !onSuccess });
}

function earlier(name: string, status: Status): EarlierStage {
  const stage = { ...created(name).stage, id: 7, repoId: 1, buildId: 1, status, machine: 'runner-1' };
  const full: Stage = { ...stage, started: 100, stopped: 200, created: 1, updated: 1, version: 3 };
  return {
    stage: full,
    steps: [
      {
        id: 70,
        stageId: 7,
        attempts: 1,
        number: 1,
        name: 'test',
        status,
        error: '',
        errIgnore: false,
        exitCode: 0,
        image: 'alpine',
        detached: false,
        dependsOn: [],
        started: 110,
        stopped: 190,
        version: 2,
      },
    ],
  };
}

const statuses = (stages: NewStageWithSteps[]) => stages.map(({ stage }) => [stage.name, stage.status]);

describe('reuseStages', () => {
  it('keeps the successes with their steps and times, and moves dependents whose stages are all done', () => {
    const stages = reuseStages(
      [created('lint'), created('unit'), created('docs', ['lint']), created('report', ['lint', 'unit'])],
      [earlier('lint', 'success'), earlier('unit', 'failure'), earlier('docs', 'skipped')],
    );
    expect(statuses(stages)).toEqual([
      ['lint', 'success'],
      ['unit', 'pending'],
      ['docs', 'pending'],
      ['report', 'waiting_on_dependencies'],
    ]);
    expect(stages[0]?.stage).toMatchObject({ machine: 'runner-1', started: 100, stopped: 200 });
    expect(stages[0]?.steps).toEqual([
      expect.objectContaining({ number: 1, status: 'success', started: 110 }),
    ]);
    expect(stages[0]?.steps[0]).not.toHaveProperty('id');
  });

  it('skips a dependent that runs only on failure once its reused dependencies succeeded', () => {
    const stages = reuseStages(
      [created('build'), created('notify', ['build'], false), created('unit')],
      [earlier('build', 'success'), earlier('unit', 'failure')],
    );
    expect(statuses(stages)).toEqual([
      ['build', 'success'],
      ['notify', 'skipped'],
      ['unit', 'pending'],
    ]);
  });

  it('reuses nothing when nothing would be left to run', () => {
    const fresh = [created('lint')];
    expect(statuses(reuseStages(fresh, [earlier('lint', 'success')]))).toEqual([['lint', 'pending']]);
  });
});
