import { describe, expect, it } from 'vitest';
import type { Runner } from '../../core/runner.js';
import type { Stage } from '../../core/stage.js';
import { runnerRegistration, storedStage } from '../../store/cases/fixtures.case.js';
import { pendingReason, type PendingContext, type PendingFacts, type RunnerLoad } from './pending-reason.js';

const NOW = 1_700_000_000_000;

function facts(fields: Partial<Stage> = {}, more: Partial<PendingFacts> = {}): PendingFacts {
  return {
    stage: storedStage(1, { name: 'build', os: 'linux', arch: 'amd64', labels: {}, ...fields }),
    repo: { slug: 'octocat/hello', trusted: false, throttle: 0 },
    build: { event: 'push' },
    active: 0,
    running: { builds: 0, thisBuild: false },
    ...more,
  };
}

function runner(name: string, fields: Partial<Runner> = {}, running = 0): RunnerLoad {
  return {
    runner: {
      ...runnerRegistration({ name, labels: {}, capacity: 2, lastSeen: NOW - 10_000 }),
      id: 1,
      created: 0,
      updated: 0,
      ...fields,
    },
    running,
  };
}

function context(runners: RunnerLoad[], more: Partial<PendingContext> = {}): PendingContext {
  return { runners, pausedSince: 0, now: NOW, ...more };
}

describe('pendingReason', () => {
  it('says a blocked stage waits for approval and a waiting one for its dependencies', () => {
    expect(pendingReason(facts({ status: 'blocked' }), context([]))?.code).toBe('waiting_for_approval');
    expect(
      pendingReason(facts({ status: 'waiting_on_dependencies', dependsOn: ['lint', 'test'] }), context([])),
    ).toEqual({
      code: 'waiting_on_dependencies',
      message: 'waiting for 2 stages it depends on to finish: lint, test',
    });
  });

  it('gives no reason for a running or finished stage, and names the runner of a taken one', () => {
    expect(pendingReason(facts({ status: 'running' }), context([]))).toBeUndefined();
    expect(pendingReason(facts({ status: 'success' }), context([]))).toBeUndefined();
    expect(pendingReason(facts({ machine: 'runner-a' }), context([]))).toEqual({
      code: 'accepted',
      message: 'runner "runner-a" took the stage and is starting it',
    });
  });

  it('puts the paused queue before the limits and the runners', () => {
    const reason = pendingReason(facts({ limit: 1 }, { active: 1 }), context([], { pausedSince: NOW - 1 }));
    expect(reason?.code).toBe('queue_paused');
    expect(reason?.message).toContain('the queue is paused');
  });

  it('names the concurrency limit and the repository throttle', () => {
    expect(pendingReason(facts({ limit: 2 }, { active: 2 }), context([runner('a')]))).toEqual({
      code: 'concurrency_limit',
      message: 'pipeline "build" already runs 2 time(s); its concurrency limit is 2',
    });
    const throttled = facts({}, { repo: { slug: 'octocat/hello', trusted: false, throttle: 1 } });
    expect(
      pendingReason({ ...throttled, running: { builds: 1, thisBuild: false } }, context([runner('a')])),
    ).toEqual({
      code: 'repository_throttle',
      message: 'repository octocat/hello already runs 1 build; its throttle is 1',
    });
    // A stage of a build that already runs is not held by the throttle.
    expect(
      pendingReason({ ...throttled, running: { builds: 1, thisBuild: true } }, context([runner('a')]))?.code,
    ).toBe('waiting_for_runner');
  });

  it('says no runner of the platform polled lately, ignoring runners silent for too long', () => {
    const arm = runner('arm', { arch: 'arm64' });
    const gone = runner('gone', { lastSeen: NOW - 6 * 60_000 });
    expect(pendingReason(facts(), context([arm, gone]))).toEqual({
      code: 'no_runner',
      message: 'no runner for type docker on linux/amd64 has polled in the last 5 minutes',
    });
    const k8s = runner('k8s', { type: 'kubernetes' });
    expect(pendingReason(facts(), context([k8s]))?.code).toBe('no_runner');
  });

  it('names the nearest runner and its first differing label when only labels differ', () => {
    const far = runner('far', { labels: { region: 'us', disk: 'hdd' } });
    const near = runner('near', { labels: { region: 'us' } });
    expect(pendingReason(facts({ labels: { region: 'eu' } }), context([far, near]))).toEqual({
      code: 'labels_mismatch',
      message:
        'no runner has the stage\'s labels region=eu; the nearest, "near", has region=us (its label region is us, the stage asks for eu)',
    });
    expect(pendingReason(facts(), context([near]))?.message).toContain(
      'it has label region=us, which the stage does not ask for',
    );
  });

  it('says all matching runners are busy, or which one will take it at its next poll', () => {
    const full = runner('full', {}, 2);
    expect(pendingReason(facts(), context([full]))).toEqual({
      code: 'runners_busy',
      message: 'the only matching runner is busy (full 2/2 stages)',
    });
    expect(pendingReason(facts(), context([full, runner('full2', {}, 3)]))?.message).toBe(
      'all 2 matching runners are busy (full 2/2, full2 3/2 stages)',
    );
    expect(pendingReason(facts(), context([full, runner('free', {}, 1)]))).toEqual({
      code: 'waiting_for_runner',
      message: 'waiting for the next poll of a matching runner with a free slot: "free"',
    });
  });
});
