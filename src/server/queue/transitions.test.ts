import { describe, expect, it } from 'vitest';
import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import { storedStage } from '../../store/cases/fixtures.case.js';
import { buildHasStarted, dependentChanges, finalBuildStatus } from './transitions.js';

let id = 0;
function stage(name: string, status: Status, fields: Partial<Stage> = {}): Stage {
  id++;
  return storedStage(id, { name, status, ...fields });
}

const waiting = (name: string, dependsOn: string[], fields: Partial<Stage> = {}) =>
  stage(name, 'waiting_on_dependencies', { dependsOn, ...fields });

const decided = (stages: Stage[]) => dependentChanges(stages).map((c) => [c.stage.name, c.status]);

describe('dependentChanges', () => {
  it('blocks a deployment waiting for its approvals once its dependencies are done, not before', () => {
    const deployment = { environment: 'production', required: 2, approved: false, deadline: 1 };
    const deploy = waiting('deploy', ['build'], { deployment });
    expect(decided([stage('build', 'running'), deploy])).toEqual([]);
    expect(decided([stage('build', 'success'), deploy])).toEqual([['deploy', 'blocked']]);
    // Approved with another stage of the environment: it runs; after a failure it is skipped as ever.
    const approved = waiting('deploy', ['build'], { deployment: { ...deployment, approved: true } });
    expect(decided([stage('build', 'success'), approved])).toEqual([['deploy', 'pending']]);
    expect(decided([stage('build', 'failure'), deploy])).toEqual([['deploy', 'skipped']]);
  });

  it('waits until every dependency is done', () => {
    expect(decided([stage('a', 'success'), stage('b', 'running'), waiting('c', ['a', 'b'])])).toEqual([]);
    expect(decided([stage('a', 'success'), stage('b', 'skipped'), waiting('c', ['a', 'b'])])).toEqual([
      ['c', 'pending'],
    ]);
  });

  it('runs on_success stages after success, on_failure ones after a failure, both with both', () => {
    const ok = [stage('a', 'success')];
    const failed = [stage('a', 'failure')];
    const dependents = [
      waiting('s', ['a']),
      waiting('f', ['a'], { onSuccess: false, onFailure: true }),
      waiting('both', ['a'], { onFailure: true }),
    ];
    expect(decided([...ok, ...dependents])).toEqual([
      ['s', 'pending'],
      ['f', 'skipped'],
      ['both', 'pending'],
    ]);
    expect(decided([...failed, ...dependents])).toEqual([
      ['s', 'skipped'],
      ['f', 'pending'],
      ['both', 'pending'],
    ]);
  });

  it('sees a failure through the stages in between, and ignores failures with errIgnore', () => {
    expect(
      decided([stage('a', 'error'), stage('b', 'skipped', { dependsOn: ['a'] }), waiting('c', ['b'])]),
    ).toEqual([['c', 'skipped']]);
    expect(decided([stage('a', 'failure', { errIgnore: true }), waiting('c', ['a'])])).toEqual([
      ['c', 'pending'],
    ]);
  });

  it('counts unknown dependency names as done', () => {
    expect(decided([waiting('c', ['nowhere'])])).toEqual([['c', 'pending']]);
  });
});

describe('finalBuildStatus', () => {
  it('is undefined until every stage is done', () => {
    expect(finalBuildStatus([stage('a', 'success'), stage('b', 'pending')])).toBeUndefined();
  });

  it('ranks killed over error over failure over success, leaving errIgnore stages out', () => {
    expect(finalBuildStatus([stage('a', 'failure'), stage('b', 'error'), stage('c', 'killed')])).toBe(
      'killed',
    );
    expect(finalBuildStatus([stage('a', 'failure'), stage('b', 'error')])).toBe('error');
    expect(finalBuildStatus([stage('a', 'declined'), stage('b', 'success')])).toBe('failure');
    expect(finalBuildStatus([stage('a', 'error', { errIgnore: true }), stage('b', 'skipped')])).toBe(
      'success',
    );
  });
});

describe('buildHasStarted', () => {
  it('is true once a stage runs or ran, not while stages are only queued or taken', () => {
    expect(
      buildHasStarted([stage('a', 'pending', { machine: 'r1' }), stage('b', 'waiting_on_dependencies')]),
    ).toBe(false);
    expect(buildHasStarted([stage('a', 'running')])).toBe(true);
    expect(buildHasStarted([stage('a', 'error')])).toBe(true);
  });
});
