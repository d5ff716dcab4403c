import { describe, expect, it } from 'vitest';
import type { WireStage } from '../client/wire/index.js';
import type { StageResult } from '../reporter.js';
import { finalReport } from './final-report.js';

const running = { id: 3, status: 'running', error: '', version: 4 } as unknown as WireStage;

function result(status: StageResult['status'], error = ''): StageResult {
  return {
    status,
    error,
    started: 1_000,
    stopped: 5_000,
    steps: [
      {
        name: 'test',
        status,
        exitCode: 0,
        oomKilled: false,
        error,
        errIgnore: false,
        started: 1_000,
        stopped: 5_000,
      },
    ],
    exitedEarlyBy: undefined,
  } as StageResult;
}

describe('the final report of a stage', () => {
  it('is the executor’s outcome when every log was stored', () => {
    expect(finalReport(running, [], result('success'), [])).toMatchObject({
      status: 'success',
      error: '',
      started: 1,
      stopped: 5,
    });
  });

  // Issue 31: a build whose log is incomplete must never be reported complete.
  it('is an error naming the step when a step’s log could not be stored, though the steps passed', () => {
    const unstored = ['the log of step "test" could not be stored: too large'];
    expect(finalReport(running, [], result('success'), unstored)).toMatchObject({
      status: 'error',
      error: unstored[0],
    });
    expect(finalReport(running, [], result('failure', 'exit 1'), unstored)).toMatchObject({
      status: 'error',
      error: `exit 1; ${unstored[0]}`,
    });
  });

  it('stays killed when the stage was cancelled', () => {
    expect(finalReport(running, [], result('killed'), ['lost']).status).toBe('killed');
  });
});
