import { afterAll, describe, expect, it } from 'vitest';
import { ConfigLanguageError } from '../types.js';
import { StarlarkEvaluator } from './evaluator.js';
import { star, starlarkRequest } from './testing.case.js';

const evaluator = new StarlarkEvaluator({ steps: 50_000, timeoutMs: 10_000 });
afterAll(() => evaluator.close());

async function failure(source: string): Promise<ConfigLanguageError> {
  const error: unknown = await evaluator.evaluate(starlarkRequest(source)).catch((e: unknown) => e);
  if (!(error instanceof ConfigLanguageError))
    throw new Error(`expected a ConfigLanguageError, got ${String(error)}`);
  return error;
}

describe('StarlarkEvaluator errors', () => {
  it('places a syntax error', async () => {
    const error = await failure(star('def main(ctx):', '  return {"kind": "pipeline",, }'));
    expect(error.message).toBe(".drone.star:2:31: got ',', want primary expression");
  });

  it('places an undefined name, found before the file runs', async () => {
    const error = await failure(star('def main(ctx):', '  return {"image": imagee}'));
    expect([error.line, error.column, error.detail]).toEqual([2, 20, 'undefined: imagee']);
  });

  it('places fail() at its call, with its message', async () => {
    const error = await failure(
      star(
        'def check(ctx):',
        '  if ctx.build.event == "push":',
        '    fail("no pushes")',
        'def main(ctx):',
        '  check(ctx)',
      ),
    );
    expect(error.message).toBe('.drone.star:3:9: fail: no pushes');
  });

  it('places a runtime error such as a missing key or attribute', async () => {
    const missingKey = await failure(star('def main(ctx):', '  settings = {}', '  return settings["image"]'));
    expect([missingKey.line, missingKey.column, missingKey.detail]).toEqual([
      3,
      18,
      'key "image" not in dict',
    ]);
    const missingField = await failure(star('def main(ctx):', '  return {"x": ctx.build.nope}'));
    expect(missingField.detail).toBe('"build" struct has no .nope attribute');
  });

  it('uses Drone’s dialect: no recursion, no set(), no reassigned globals', async () => {
    const recursion = await failure(
      star('def f(n):', '  return f(n - 1) if n else 0', 'def main(ctx):', '  return {"n": f(3)}'),
    );
    expect([recursion.line, recursion.detail]).toEqual([2, 'function f called recursively']);
    expect((await failure(star('def main(ctx):', '  return {"s": set([1])}'))).detail).toBe(
      'this Starlark dialect does not support sets',
    );
    expect((await failure(star('x = 1', 'x = 2'))).detail).toMatch(/cannot reassign global x/);
  });

  it('reports a file without main, or whose main is not a function', async () => {
    const missing = await failure(star('def pipeline(ctx):', '  return {}'));
    expect(missing.message).toBe('.drone.star: starlark: missing main function');
    const notCallable = await failure(star('main = {}'));
    expect(notCallable.detail).toBe('starlark: main must be a function (it is a dict)');
  });

  it('reports a main that returns neither a dict nor a list, at main', async () => {
    const error = await failure(star('', 'def main(ctx):', '  return "kind: pipeline"'));
    expect(error.message).toBe(
      '.drone.star:2:1: starlark: main returns an invalid type (string; want a dict or a list of dicts)',
    );
  });
});
