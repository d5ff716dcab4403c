import { describe, expect, it } from 'vitest';
import { runOnNullEngine as run, statuses } from './testing/run.js';
import { execStep } from './testing/spec.js';

describe('StageExecutor: cancel and timeouts', () => {
  it('kills running steps and skips pending ones when cancelled, then destroys', async () => {
    const control = new AbortController();
    setTimeout(() => control.abort(), 50);
    const started = Date.now();
    const { result, step, engine } = await run(
      [
        execStep('server', { detach: true }),
        execStep('a'),
        execStep('b'),
        execStep('c', { dependsOn: ['a'] }),
        execStep('always', { dependsOn: ['c'], runPolicy: 'always' }),
      ],
      { steps: { server: { hang: true }, a: { hang: true }, b: { delay: 10 } } },
      { signal: control.signal },
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result).toMatchObject({ status: 'killed', error: 'the stage was cancelled' });
    expect(step('a')).toMatchObject({ status: 'killed', exitCode: 137, error: 'the stage was cancelled' });
    expect(step('b').status).toBe('success');
    expect(step('c').status).toBe('skipped');
    expect(step('always').status).toBe('skipped');
    expect(step('server').status).toBe('killed');
    // Destroy came once, after the killed step had stopped.
    const kinds = engine.events.map((e) => (e.type === 'abort' ? `abort:${e.step}` : e.type));
    expect(kinds.filter((k) => k === 'destroy')).toHaveLength(1);
    expect(kinds.indexOf('destroy')).toBeGreaterThan(kinds.indexOf('abort:a'));
  });

  it('runs nothing, but still destroys, when cancelled before it starts', async () => {
    const { result, engine } = await run([execStep('a')], {}, { signal: AbortSignal.abort() });
    expect(result.status).toBe('killed');
    expect(statuses(result)).toEqual({ a: 'skipped' });
    expect(engine.events.map((e) => e.type)).toEqual(['destroy']);
  });

  it('cancels during setup', async () => {
    const control = new AbortController();
    setTimeout(() => control.abort(), 20);
    const { result, engine } = await run([execStep('a')], { setupDelay: 5_000 }, { signal: control.signal });
    expect(result.status).toBe('killed');
    expect(engine.started()).toEqual([]);
    expect(engine.events.map((e) => e.type)).toEqual(['setup', 'destroy']);
  });

  it('kills a step that exceeds its own timeout: it fails, and so does the stage', async () => {
    const { result, step } = await run(
      [
        execStep('stuck', { timeout: 50 }),
        execStep('report', { dependsOn: ['stuck'], runPolicy: 'on-failure' }),
      ],
      { steps: { stuck: { hang: true } } },
    );
    expect(step('stuck')).toMatchObject({
      status: 'failure',
      exitCode: 137,
      error: 'step timed out after 50ms (its timeout)',
    });
    expect(step('report').status).toBe('success');
    expect(result.status).toBe('failure');
  });

  it('kills the stage when it exceeds the stage timeout', async () => {
    const { result, step } = await run(
      [execStep('stuck'), execStep('after', { dependsOn: ['stuck'], runPolicy: 'always' })],
      { steps: { stuck: { hang: true } } },
      { timeout: 60 },
    );
    expect(result).toMatchObject({ status: 'killed', error: 'the stage timed out after 60ms' });
    expect(step('stuck')).toMatchObject({ status: 'killed', error: 'the stage timed out after 60ms' });
    expect(step('after').status).toBe('skipped');
  });
});

describe('StageExecutor: engine failures', () => {
  it('fails the stage with a clear error when setup fails, and still destroys', async () => {
    const { result, engine } = await run([execStep('a'), execStep('b')], { setupError: 'network refused' });
    expect(result).toMatchObject({ status: 'error', error: 'setting up the stage failed: network refused' });
    expect(statuses(result)).toEqual({ a: 'skipped', b: 'skipped' });
    expect(engine.events.map((e) => e.type)).toEqual(['setup', 'destroy']);
  });

  it('reports an engine error of a step as the step and stage error', async () => {
    const { result, step } = await run([execStep('a'), execStep('b', { dependsOn: ['a'] })], {
      steps: { a: { engineError: 'image "x" not found' } },
    });
    expect(step('a')).toMatchObject({ status: 'error', exitCode: 255, error: 'image "x" not found' });
    expect(step('b').status).toBe('skipped');
    expect(result).toMatchObject({ status: 'error', error: 'step "a": image "x" not found' });
  });

  it('refuses an invalid graph without running anything', async () => {
    const { result, engine } = await run([
      execStep('a', { dependsOn: ['b'] }),
      execStep('b', { dependsOn: ['a'] }),
    ]);
    expect(result.status).toBe('error');
    expect(result.error).toContain('cycle');
    expect(engine.events.map((e) => e.type)).toEqual(['destroy']);
  });

  it('keeps the outcome but says so when destroy fails', async () => {
    const { result } = await run([execStep('a')], { destroyError: 'volume busy' });
    expect(result).toMatchObject({ status: 'success', cleanupError: 'volume busy' });
  });
});
