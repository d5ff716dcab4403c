import { describe, expect, it } from 'vitest';
import type { ExecRetry, StepExit } from '../core/engine.js';
import type { NullScript } from '../engines/null/engine.js';
import { runOnNullEngine as run } from './testing/run.js';
import { execStep } from './testing/spec.js';

/** A step that ends attempt after attempt as `ends` says (an exit code, or an engine failure). */
function attempts(...ends: (number | 'engine' | 'oom')[]): NullScript {
  let attempt = 0;
  return (_step, output): Promise<StepExit> => {
    const end = ends[Math.min(attempt, ends.length - 1)];
    attempt++;
    output(`attempt ${attempt} runs`);
    if (end === 'engine') return Promise.reject(new Error('pulling image "x": not found'));
    if (end === 'oom') return Promise.resolve({ exitCode: 137, oomKilled: true });
    return Promise.resolve({ exitCode: end ?? 0, oomKilled: false });
  };
}

const on = (retry: Partial<ExecRetry>): { retry: ExecRetry } => ({
  retry: { max: 2, exitCodes: [], anyExit: false, infrastructure: false, ...retry },
});

describe('StageRun: retry', () => {
  it('runs a step that exited with a named code again, in the same log, and says how many attempts it took', async () => {
    const { result, step, reporter } = await run([execStep('flaky', on({ exitCodes: [137] }))], {
      steps: { flaky: attempts(137, 0) },
    });
    expect(result.status).toBe('success');
    expect(step('flaky')).toMatchObject({ status: 'success', exitCode: 0, attempts: 2 });
    expect(reporter.lines('flaky')).toEqual([
      'attempt 1 runs',
      'retry: attempt 1 of 3 failed (exit code 137); the step runs again',
      'attempt 2 runs',
    ]);
  });

  it('stops at max and fails with the last attempt’s exit code', async () => {
    const { result, step } = await run([execStep('broken', on({ anyExit: true }))], {
      steps: { broken: attempts(1, 2, 3) },
    });
    expect(result.status).toBe('failure');
    expect(step('broken')).toMatchObject({ status: 'failure', exitCode: 3, attempts: 3 });
  });

  it('does not run again on an exit code `when` does not name, nor on infrastructure unless named', async () => {
    const other = await run([execStep('a', on({ exitCodes: [137] }))], { steps: { a: attempts(1, 0) } });
    expect(other.step('a')).toMatchObject({ status: 'failure', exitCode: 1, attempts: 1 });
    const engine = await run([execStep('a', on({ exitCodes: [1] }))], {
      steps: { a: attempts('engine', 0) },
    });
    expect(engine.step('a')).toMatchObject({ status: 'error', attempts: 1 });
  });

  it('runs again after the engine failed or the container was killed for memory, with infrastructure', async () => {
    const pulled = await run([execStep('a', on({ infrastructure: true }))], {
      steps: { a: attempts('engine', 0) },
    });
    expect(pulled.step('a')).toMatchObject({ status: 'success', attempts: 2 });
    expect(pulled.reporter.lines('a')[1]).toBe(
      'retry: attempt 1 of 3 failed (the engine failed: pulling image "x": not found); the step runs again',
    );
    const oom = await run([execStep('a', on({ infrastructure: true }))], {
      steps: { a: attempts('oom', 0) },
    });
    expect(oom.step('a')).toMatchObject({ status: 'success', attempts: 2 });
  });

  it('never runs a cancelled stage’s step again', async () => {
    const control = new AbortController();
    setTimeout(() => control.abort(), 30);
    const { step, engine } = await run(
      [execStep('a', on({ anyExit: true, infrastructure: true }))],
      { steps: { a: { hang: true } } },
      { signal: control.signal },
    );
    expect(step('a')).toMatchObject({ status: 'killed', attempts: 1 });
    expect(engine.started()).toEqual(['a']);
  });

  it('times each attempt with the step’s timeout; a bare retry (any failure) runs a timed-out one again', async () => {
    let attempt = 0;
    const slowThenQuick: NullScript = async (_step, _output, signal) => {
      attempt++;
      if (attempt === 1) await new Promise((_, reject) => signal.addEventListener('abort', reject));
      return { exitCode: 0, oomKilled: false };
    };
    const { step } = await run([execStep('a', { timeout: 40, ...on({ anyExit: true }) })], {
      steps: { a: slowThenQuick },
    });
    expect(step('a')).toMatchObject({ status: 'success', attempts: 2 });
    const named = await run([execStep('a', { timeout: 40, ...on({ exitCodes: [137] }) })], {
      steps: { a: { hang: true } },
    });
    expect(named.step('a')).toMatchObject({
      status: 'failure',
      exitCode: 137,
      attempts: 1,
      error: 'step timed out after 40ms (its timeout)',
    });
  });

  it('gives the engine each attempt as a step of its own id (a new container)', async () => {
    const ids: string[] = [];
    const recorded: NullScript = (step) => {
      ids.push(step.id);
      return Promise.resolve({ exitCode: ids.length < 3 ? 1 : 0, oomKilled: false });
    };
    const { step } = await run([execStep('a', on({ anyExit: true }))], { steps: { a: recorded } });
    expect(step('a').attempts).toBe(3);
    const first = ids[0] ?? '';
    expect(ids).toEqual([first, `${first}-attempt-2`, `${first}-attempt-3`]);
  });

  it('says so in the log, and keeps the first attempt, on an engine that cannot run a step again', async () => {
    const { step, reporter } = await run([execStep('a', on({ exitCodes: [137] }))], {
      steps: { a: attempts(137, 0) },
      runsStepsAgain: false,
    });
    expect(step('a')).toMatchObject({ status: 'failure', exitCode: 137, attempts: 1 });
    expect(reporter.lines('a')).toEqual([
      'attempt 1 runs',
      'retry: attempt 1 failed (exit code 137); this runner kind cannot run a step again',
    ]);
  });

  it('says 1 attempt for a step without retry, and 0 for one that never ran', async () => {
    const { step } = await run([execStep('a'), execStep('b', { runPolicy: 'never' })]);
    expect(step('a').attempts).toBe(1);
    expect(step('b').attempts).toBe(0);
  });
});
