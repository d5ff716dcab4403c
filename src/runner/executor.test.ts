import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../engines/lines.js';
import { NullEngine } from '../engines/null/engine.js';
import { StageExecutor } from './executor.js';
import { MemoryReporter } from './memory-reporter.js';
import { runOnNullEngine as run, statuses } from './testing/run.js';
import { execSpec, execStep } from './testing/spec.js';

/** When each step started and exited, from the engine's own record. */
function timeline(engine: NullEngine): Map<string, { start: number; exit: number }> {
  const times = new Map<string, { start: number; exit: number }>();
  for (const e of engine.events) {
    if (e.type === 'start') times.set(e.step, { start: e.at, exit: Infinity });
    const t = e.type === 'exit' || e.type === 'abort' ? times.get(e.step) : undefined;
    if (t && (e.type === 'exit' || e.type === 'abort')) t.exit = e.at;
  }
  return times;
}

describe('StageExecutor: scheduling', () => {
  it('starts a step only when all its dependencies are done, and independent steps together', async () => {
    const { result, engine } = await run(
      [
        execStep('a'),
        execStep('b', { dependsOn: ['a'] }),
        execStep('c', { dependsOn: ['a'] }),
        execStep('d', { dependsOn: ['b', 'c'] }),
      ],
      { steps: { a: { delay: 30 }, b: { delay: 60 }, c: { delay: 20 } } },
    );
    expect(result.status).toBe('success');
    const t = timeline(engine);
    const at = (name: string): { start: number; exit: number } => t.get(name) ?? { start: NaN, exit: NaN };
    expect(at('b').start).toBeGreaterThanOrEqual(at('a').exit);
    expect(at('c').start).toBeGreaterThanOrEqual(at('a').exit);
    expect(at('d').start).toBeGreaterThanOrEqual(Math.max(at('b').exit, at('c').exit));
    // b and c ran at the same time.
    expect(at('c').start).toBeLessThan(at('b').exit);
    expect(engine.maxConcurrent).toBe(2);
  });

  it('runs at most maxProcs steps at once (and all of them without a limit)', async () => {
    const steps = ['s1', 's2', 's3', 's4', 's5', 's6'].map((n) => execStep(n));
    const behaviours = Object.fromEntries(steps.map((s) => [s.name, { delay: 50 }]));

    const started = Date.now();
    const limited = await run(steps, { steps: behaviours }, { maxProcs: 2 });
    const limitedMs = Date.now() - started;
    expect(limited.result.status).toBe('success');
    expect(limited.engine.maxConcurrent).toBe(2);
    expect(limitedMs).toBeGreaterThanOrEqual(150); // three waves of 50 ms

    const free = await run(steps, { steps: behaviours }, { maxProcs: 0 });
    expect(free.engine.maxConcurrent).toBe(6);
    // Steps are started in spec order as slots free up.
    expect(limited.engine.started()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6']);
  });

  it('shares maxProcs between the stages of one executor (the ssh runner: across all pipelines)', async () => {
    const engine = new NullEngine({
      steps: { a1: { delay: 40 }, a2: { delay: 40 }, b1: { delay: 40 }, b2: { delay: 40 } },
    });
    const executor = new StageExecutor({ engine, maxProcs: 2 });
    const [a, b] = await Promise.all([
      executor.execute(execSpec([execStep('a1'), execStep('a2')])),
      executor.execute(execSpec([execStep('b1'), execStep('b2')])),
    ]);
    expect([a.status, b.status]).toEqual(['success', 'success']);
    expect(engine.maxConcurrent).toBe(2);
  });

  it('does not let a detached step block its dependents, and ends it with the stage', async () => {
    const { result, reporter, step } = await run(
      [execStep('database', { detach: true }), execStep('test', { dependsOn: ['database'] })],
      {
        steps: {
          database: { lines: ['ready'], hang: true },
          test: { lines: ['testing'], delay: 20 },
        },
      },
    );
    expect(result.status).toBe('success');
    expect(step('database')).toMatchObject({ status: 'success', exitCode: 0 });
    expect(reporter.lines('database')).toEqual(['ready']);
    // The detached step is reported finished last, after the steps that depended on it.
    const finished = reporter.events.flatMap((e) => (e.type === 'finished' ? [e.step] : []));
    expect(finished).toEqual(['test', 'database']);
  });
});

describe('StageExecutor: policies', () => {
  it('runs on-failure steps only after a failure, skips on-success ones, and always runs always', async () => {
    const { result, step } = await run(
      [
        execStep('build', { runPolicy: 'on-success' }),
        execStep('test', { dependsOn: ['build'] }),
        execStep('deploy', { dependsOn: ['test'] }),
        execStep('notify-failure', { dependsOn: ['test'], runPolicy: 'on-failure' }),
        execStep('cleanup', { dependsOn: ['deploy', 'notify-failure'], runPolicy: 'always' }),
        execStep('disabled', { runPolicy: 'never' }),
      ],
      { steps: { test: { exitCode: 2 } } },
    );
    expect(statuses(result)).toEqual({
      build: 'success',
      test: 'failure',
      deploy: 'skipped',
      'notify-failure': 'success',
      cleanup: 'success',
      disabled: 'skipped',
    });
    expect(step('test').exitCode).toBe(2);
    expect(result.status).toBe('failure');
  });

  it('tells steps that start after a failure how the stage is going (DRONE_BUILD_STATUS, DRONE_FAILED_STEPS)', async () => {
    const seen = new Map<string, Record<string, string>>();
    const engine = new NullEngine({ steps: { lint: { exitCode: 1 }, test: { exitCode: 2 } } });
    const run = engine.run.bind(engine);
    engine.run = (spec, step, output, signal) => {
      seen.set(step.name, step.envs);
      return run(spec, step, output, signal);
    };
    const compiled = {
      DRONE_BUILD_STATUS: 'success',
      DRONE_STAGE_STATUS: 'success',
      SVC_BUILD_STATUS: 'success',
    };
    const steps = [
      execStep('build', { envs: { ...compiled } }),
      execStep('lint', { dependsOn: ['build'], errPolicy: 'ignore', envs: { ...compiled } }),
      execStep('test', { dependsOn: ['lint'], envs: { ...compiled } }),
      execStep('notify', { dependsOn: ['test'], runPolicy: 'on-failure', envs: { ...compiled } }),
    ];
    await new StageExecutor({ engine, maxProcs: 0 }).execute(execSpec(steps), {
      reporter: new MemoryReporter(),
    });
    // An ignored failure does not count; the compiled values stay until a counted one.
    expect(seen.get('test')).toEqual(compiled);
    expect(seen.get('notify')).toMatchObject({
      DRONE_BUILD_STATUS: 'failure',
      DRONE_STAGE_STATUS: 'failure',
      DRONE_FAILED_STEPS: 'test',
      SVC_BUILD_STATUS: 'failure',
      SVC_FAILED_STEPS: 'test',
      CI_BUILD_STATUS: 'failure',
    });
    expect(steps[3]?.envs.DRONE_BUILD_STATUS).toBe('success');
  });

  it('skips on-failure steps when nothing failed', async () => {
    const { result } = await run([
      execStep('build'),
      execStep('notify-failure', { dependsOn: ['build'], runPolicy: 'on-failure' }),
    ]);
    expect(statuses(result)).toEqual({ build: 'success', 'notify-failure': 'skipped' });
    expect(result.status).toBe('success');
  });

  it('does not fail the stage for a step with failure: ignore', async () => {
    const { result, step } = await run(
      [
        execStep('lint', { errPolicy: 'ignore' }),
        execStep('build', { dependsOn: ['lint'] }),
        execStep('on-failure', { dependsOn: ['build'], runPolicy: 'on-failure' }),
      ],
      { steps: { lint: { exitCode: 1 } } },
    );
    expect(step('lint')).toMatchObject({ status: 'failure', exitCode: 1, errIgnore: true });
    expect(statuses(result)).toMatchObject({ build: 'success', 'on-failure': 'skipped' });
    expect(result.status).toBe('success');
  });

  it('stops the stage at once when a step with failure: fast fails, and ends it failed, not killed', async () => {
    const started = Date.now();
    const { result, step } = await run(
      [
        execStep('unit', { errPolicy: 'fast' }),
        execStep('integration'),
        execStep('package', { dependsOn: ['unit'] }),
        execStep('notify', { dependsOn: ['unit'], runPolicy: 'on-failure' }),
      ],
      { steps: { unit: { delay: 20, exitCode: 1 }, integration: { delay: 10_000 } } },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(statuses(result)).toEqual({
      unit: 'failure',
      integration: 'killed',
      package: 'skipped',
      notify: 'skipped',
    });
    expect(step('integration').error).toBe('step "unit" failed and has failure: fast');
    expect(result).toMatchObject({ status: 'failure', error: '' });
  });

  it('lets the other steps run on when a step with failure: fast succeeds, or a plain step fails', async () => {
    const { result } = await run(
      [execStep('unit', { errPolicy: 'fast' }), execStep('lint'), execStep('integration')],
      { steps: { lint: { delay: 10, exitCode: 1 }, integration: { delay: 60 } } },
    );
    expect(statuses(result)).toEqual({ unit: 'success', lint: 'failure', integration: 'success' });
    expect(result.status).toBe('failure');
  });

  it('ends the stage early as a success when a step exits 78', async () => {
    const { result, step, engine } = await run(
      [
        execStep('check'),
        execStep('slow-sibling'),
        execStep('build', { dependsOn: ['check'] }),
        execStep('always', { dependsOn: ['build'], runPolicy: 'always' }),
      ],
      { steps: { check: { exitCode: 78, delay: 10 }, 'slow-sibling': { delay: 60 } } },
    );
    expect(result.status).toBe('success');
    expect(result.exitedEarlyBy).toBe('check');
    expect(step('check')).toMatchObject({ status: 'success', exitCode: 78 });
    // A step already running when 78 came finishes normally; nothing new starts.
    expect(step('slow-sibling').status).toBe('success');
    expect(step('build').status).toBe('skipped');
    expect(step('build').error).toBe('step "check" exited 78: the rest of the stage is skipped');
    expect(step('always').status).toBe('skipped');
    expect(engine.started().sort()).toEqual(['check', 'slow-sibling']);
  });

  it('reports an OOM kill as a failure with a reason', async () => {
    const { result, step } = await run([execStep('big')], {
      steps: { big: { exitCode: 137, oomKilled: true } },
    });
    expect(step('big')).toMatchObject({ status: 'failure', oomKilled: true, error: 'killed: out of memory' });
    expect(result.status).toBe('failure');
  });
});

describe('StageExecutor: output and reporting', () => {
  it('numbers and times each line, between started and finished, and reports every step once', async () => {
    let clock = 1_000_000;
    const engine = new NullEngine({
      steps: {
        a: async (_step, output) => {
          output('one');
          clock += 2_500;
          output('two');
          return Promise.resolve({ exitCode: 0, oomKilled: false });
        },
      },
    });
    const reporter = new MemoryReporter();
    const executor = new StageExecutor({ engine, now: () => clock });
    const result = await executor.execute(
      execSpec([execStep('a'), execStep('b', { dependsOn: ['a'], runPolicy: 'on-failure' })]),
      { reporter },
    );
    expect(reporter.logLines('a')).toEqual([
      { pos: 0, out: 'one', time: 0 },
      { pos: 1, out: 'two', time: 2 },
    ]);
    expect(reporter.events.map((e) => `${e.type}:${'step' in e ? e.step : ''}`)).toEqual([
      'started:a',
      'line:a',
      'line:a',
      'finished:a',
      'finished:b',
      'stage:',
    ]);
    expect(result.steps[0]).toMatchObject({ started: 1_000_000, stopped: 1_002_500 });
  });

  it('masks every secret marked for masking, in any step, also across lines, but not plain values', async () => {
    const multiLine = 'line-one-of-key\nline-two-of-key';
    const { reporter } = await run(
      [
        execStep('a', {
          secrets: [
            { name: 'token', env: 'TOKEN', data: 's3cr3t-t0ken', mask: true },
            { name: 'key', env: 'KEY', data: multiLine, mask: true },
            { name: 'plain', env: 'PLAIN', data: 'visible-value', mask: false },
          ],
        }),
        execStep('b', { dependsOn: ['a'] }),
      ],
      {
        steps: {
          a: {
            lines: ['token=s3cr3t-t0ken', 'key: line-one-of-key', 'line-two-of-key (end)', 'visible-value'],
          },
          // Another step can read a secret from the workspace: it is masked there too.
          b: { lines: ['copied s3cr3t-t0ken'] },
        },
      },
    );
    expect(reporter.lines('a')).toEqual([
      'token=********',
      'key: ********',
      '******** (end)',
      'visible-value',
    ]);
    expect(reporter.lines('b')).toEqual(['copied ********']);
    expect(reporter.allLines().join('\n')).not.toMatch(/s3cr3t|line-one-of-key|line-two-of-key/);
  });

  it('masks a secret cut across chunks of output once the engine has joined its line', async () => {
    const { reporter } = await run(
      [execStep('a', { secrets: [{ name: 't', env: 'T', data: 'chunked-s3cret', mask: true }] })],
      {
        steps: {
          a: (_step, output) => {
            const splitter = new LineSplitter(output);
            for (const chunk of ['token=chun', 'ked-s3', 'cret\nnext', ' line\n'])
              splitter.write(Buffer.from(chunk));
            splitter.end();
            return Promise.resolve({ exitCode: 0, oomKilled: false });
          },
        },
      },
    );
    expect(reporter.lines('a')).toEqual(['token=********', 'next line']);
  });

  it('masks secrets in error messages', async () => {
    const { result } = await run(
      [execStep('a', { secrets: [{ name: 't', env: 'T', data: 'p4ssw0rd', mask: true }] })],
      { steps: { a: { engineError: 'pull failed for user:p4ssw0rd' } } },
    );
    expect(result.steps[0]?.error).toBe('pull failed for user:********');
  });

  it('goes on when a reporter throws and returns the first error', async () => {
    const engine = new NullEngine({ steps: { a: { lines: ['x'] } } });
    const reporter = new MemoryReporter();
    reporter.stepLine = () => {
      throw new Error('log buffer full');
    };
    const result = await new StageExecutor({ engine }).execute(execSpec([execStep('a'), execStep('b')]), {
      reporter,
    });
    expect(result.status).toBe('success');
    expect(result.reportError).toBeInstanceOf(Error);
    expect((result.reportError as Error).message).toBe('log buffer full');
    expect(engine.events.at(-1)?.type).toBe('destroy');
  });
});
