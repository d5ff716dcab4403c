import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { LanguageLimits } from '../types.js';
import { ConfigLanguageError } from '../types.js';
import { StarlarkEvaluator } from './evaluator.js';
import { star, starlarkRequest } from './testing.case.js';

/** Loops for about forever (10^18 iterations) without recursion, which Drone's dialect refuses. */
const ENDLESS = star(
  'def main(ctx):',
  '  for i in range(1000000000):',
  '    for j in range(1000000000):',
  '      pass',
  '  return {}',
);
const QUICK = star('def main(ctx):', '  return {"kind": "pipeline", "name": ctx.build.event}');

let evaluator: StarlarkEvaluator | undefined;
afterEach(() => evaluator?.close());

function withLimits(limits: LanguageLimits): StarlarkEvaluator {
  evaluator = new StarlarkEvaluator(limits);
  return evaluator;
}

async function failure(pending: Promise<unknown>): Promise<ConfigLanguageError> {
  const error: unknown = await pending.catch((e: unknown) => e);
  if (!(error instanceof ConfigLanguageError))
    throw new Error(`expected a ConfigLanguageError, got ${String(error)}`);
  return error;
}

describe('StarlarkEvaluator limits', () => {
  it('stops a program after the step limit, naming the limit and where it stopped', async () => {
    const starlark = withLimits({ steps: 1000, timeoutMs: 10_000 });
    const error = await failure(starlark.evaluate(starlarkRequest(ENDLESS)));
    expect(error.detail).toMatch(/^exceeded 1000 steps/);
    expect([error.file, error.line]).toEqual(['.drone.star', 3]);
    // the limit covers loaded files' top level too
    const loading = starlarkRequest(star('load("lib.star", "x")'), {
      'lib.star': star('x = [i for i in range(5000)]'),
    });
    expect((await failure(starlark.evaluate(loading))).file).toBe('lib.star');
  });

  it('stops a program after the time limit, then evaluates the next one in a fresh worker', async () => {
    const starlark = withLimits({ steps: Number.MAX_SAFE_INTEGER, timeoutMs: 300 });
    const started = performance.now();
    const error = await failure(starlark.evaluate(starlarkRequest(ENDLESS)));
    expect(error.message).toBe('.drone.star: exceeded the time limit of 300 ms');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await starlark.evaluate(starlarkRequest(QUICK))).toEqual([{ kind: 'pipeline', name: 'push' }]);
  });

  it('stops a program that takes too much memory, then evaluates the next one', async () => {
    const starlark = withLimits({ steps: 50_000, timeoutMs: 20_000 });
    const hog = star('def main(ctx):', '  text = "x" * 1000000000', '  return {"size": len(text)}');
    const error = await failure(starlark.evaluate(starlarkRequest(hog)));
    expect(error.message).toMatch(/^\.drone\.star: the Starlark interpreter stopped: runtime: out of memory/);
    expect(await starlark.evaluate(starlarkRequest(QUICK))).toEqual([{ kind: 'pipeline', name: 'push' }]);
  });

  it('does not count the time spent reading repository files', async () => {
    const starlark = withLimits({ steps: 50_000, timeoutMs: 1_000 });
    const request = starlarkRequest(star('load("lib.star", "x")', 'def main(ctx):', '  return {"x": x}'));
    const slowRead = async (path: string): Promise<string | undefined> => {
      await sleep(1_500);
      return path === 'lib.star' ? 'x = 1\n' : undefined;
    };
    expect(await starlark.evaluate({ ...request, read: slowRead })).toEqual([{ x: 1 }]);
  });

  it('runs concurrent evaluations one after another, each with its own answer', async () => {
    const starlark = withLimits({ steps: 50_000, timeoutMs: 10_000 });
    const names = ['a', 'b', 'c', 'd', 'e'];
    const results = await Promise.all(
      names.map((name) =>
        starlark.evaluate(starlarkRequest(star('def main(ctx):', `  return {"name": "${name}"}`))),
      ),
    );
    expect(results).toEqual(names.map((name) => [{ name }]));
  });

  it('passes a failed repository read on as is, and recovers for the next evaluation', async () => {
    const starlark = withLimits({ steps: 50_000, timeoutMs: 10_000 });
    const request = starlarkRequest(star('load("lib.star", "x")'));
    const broken = new Error('git: object not found');
    await expect(starlark.evaluate({ ...request, read: () => Promise.reject(broken) })).rejects.toBe(broken);
    expect(await starlark.evaluate(starlarkRequest(QUICK))).toEqual([{ kind: 'pipeline', name: 'push' }]);
  });

  it('refuses evaluations once closed', async () => {
    const starlark = withLimits({ steps: 50_000, timeoutMs: 10_000 });
    await starlark.close();
    await expect(starlark.evaluate(starlarkRequest(QUICK))).rejects.toThrow(/closed/);
  });
});
