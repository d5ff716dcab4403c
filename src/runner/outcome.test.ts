import { describe, expect, it } from 'vitest';
import type { RunPolicy } from '../core/engine.js';
import { exitOutcome, skipReason, type StageSoFar } from './outcome.js';

const fine: StageSoFar = {
  stopMessage: undefined,
  stoppedByFailure: false,
  exitedEarlyBy: undefined,
  failed: false,
};
const failed: StageSoFar = { ...fine, failed: true };

describe('skipReason', () => {
  it.each<[RunPolicy, StageSoFar, string | undefined]>([
    ['on-success', fine, undefined],
    ['on-success', failed, ''],
    ['on-failure', fine, ''],
    ['on-failure', failed, undefined],
    ['always', fine, undefined],
    ['always', failed, undefined],
    ['never', fine, ''],
  ])('%s after %o: %s', (policy, stage, expected) => {
    expect(skipReason(policy, stage)).toBe(expected);
  });

  it('skips every policy, always included, once the stage stopped or a step exited 78', () => {
    expect(skipReason('always', { ...fine, stopMessage: 'the stage was cancelled' })).toBe(
      'the stage was cancelled',
    );
    expect(skipReason('always', { ...fine, exitedEarlyBy: 'check' })).toBe(
      'step "check" exited 78: the rest of the stage is skipped',
    );
  });
});

describe('exitOutcome', () => {
  it('counts 0 and 78 as success, other codes and OOM kills as failure', () => {
    expect(exitOutcome({ exitCode: 0, oomKilled: false }).status).toBe('success');
    expect(exitOutcome({ exitCode: 78, oomKilled: false }).status).toBe('success');
    expect(exitOutcome({ exitCode: 1, oomKilled: false }).status).toBe('failure');
    expect(exitOutcome({ exitCode: 0, oomKilled: true })).toMatchObject({
      status: 'failure',
      error: 'killed: out of memory',
    });
  });
});
