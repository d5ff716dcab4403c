import { afterAll, describe, expect, it } from 'vitest';
import { ConfigLanguageError } from '../types.js';
import { StarlarkEvaluator } from './evaluator.js';
import { star, starlarkRequest } from './testing.case.js';

const evaluator = new StarlarkEvaluator({ steps: 50_000, timeoutMs: 10_000 });
afterAll(() => evaluator.close());

async function failure(source: string, files: Record<string, string>): Promise<ConfigLanguageError> {
  const error: unknown = await evaluator.evaluate(starlarkRequest(source, files)).catch((e: unknown) => e);
  if (!(error instanceof ConfigLanguageError))
    throw new Error(`expected a ConfigLanguageError, got ${String(error)}`);
  return error;
}

describe('StarlarkEvaluator load()', () => {
  it('loads a file by its path from the repository root', async () => {
    const request = starlarkRequest(
      star('load("ci/steps.star", "step")', 'def main(ctx):', '  return {"steps": [step("test")]}'),
      { 'ci/steps.star': star('def step(name):', '  return {"name": name, "image": "alpine"}') },
    );
    expect(await evaluator.evaluate(request)).toEqual([{ steps: [{ name: 'test', image: 'alpine' }] }]);
    expect(request.repository.reads).toEqual(['ci/steps.star']);
  });

  it('resolves ./ and ../ from the loading file, and runs a file loaded twice once', async () => {
    const request = starlarkRequest(
      star(
        'load("ci/pipelines.star", "pipelines")',
        'load("ci/lib/images.star", "IMAGE")',
        'def main(ctx):',
        '  return pipelines(IMAGE)',
      ),
      {
        'ci/pipelines.star': star(
          'load("./lib/images.star", "IMAGE", "tag")',
          'def pipelines(image):',
          '  return [{"name": "a", "image": image}, {"name": "b", "image": tag("b")}]',
        ),
        'ci/lib/images.star': star(
          'load("../../common.star", "REGISTRY")',
          'IMAGE = REGISTRY + "/app"',
          'def tag(t):',
          '  return IMAGE + ":" + t',
        ),
        'common.star': star('REGISTRY = "registry.example.com"'),
      },
    );
    expect(await evaluator.evaluate(request)).toEqual([
      { name: 'a', image: 'registry.example.com/app' },
      { name: 'b', image: 'registry.example.com/app:b' },
    ]);
    expect(request.repository.reads).toEqual(['ci/pipelines.star', 'ci/lib/images.star', 'common.star']);
  });

  it('reports a load cycle at the load statement that closes it', async () => {
    const error = await failure(star('load("a.star", "a")', 'def main(ctx):', '  return {}'), {
      'a.star': star('load("b.star", "b")', 'a = 1'),
      'b.star': star('', 'load("a.star", "a")', 'b = 2'),
    });
    expect(error.file).toBe('b.star');
    expect([error.line, error.column]).toEqual([2, 1]);
    expect(error.detail).toBe('cannot load a.star: load cycle: a.star → b.star → a.star');
  });

  it('reports a file that loads itself as a cycle', async () => {
    const error = await failure(star('load(".drone.star", "x")', 'def main(ctx):', '  return {}'), {});
    expect(error.detail).toMatch(/load cycle: \.drone\.star → \.drone\.star/);
  });

  it('reports a missing file at the load statement', async () => {
    const error = await failure(
      star('# helpers', 'load("ci/missing.star", "x")', 'def main(ctx):', '  return {}'),
      {},
    );
    expect(error.message).toBe(
      '.drone.star:2:1: cannot load ci/missing.star: no such file in the repository',
    );
  });

  it('names the resolved path of a missing file loaded by a relative name', async () => {
    const error = await failure(star('load("ci/a.star", "x")'), {
      'ci/a.star': star('load("./b.star", "x")'),
    });
    expect([error.file, error.line]).toEqual(['ci/a.star', 1]);
    expect(error.detail).toBe('cannot load ./b.star: ci/b.star: no such file in the repository');
  });

  it('refuses a path outside the repository', async () => {
    const error = await failure(star('load("../secrets.star", "x")'), {});
    expect(error.detail).toMatch(/"\.\.\/secrets\.star" is not a file inside the repository/);
  });

  it('names the loaded file and line of a runtime error raised in it', async () => {
    const error = await failure(
      star('load("lib.star", "image")', 'def main(ctx):', '  return {"image": image({})}'),
      { 'lib.star': star('def image(settings):', '  name = settings["name"]', '  return name') },
    );
    expect([error.file, error.line, error.column]).toEqual(['lib.star', 2, 18]);
    expect(error.detail).toBe('key "name" not in dict');
  });

  it('names the loaded file and line of a syntax error in it', async () => {
    const error = await failure(star('load("lib.star", "x")', 'def main(ctx):', '  return {}'), {
      'lib.star': star('x = 1', 'y = (2'),
    });
    expect([error.file, error.line]).toEqual(['lib.star', 3]);
    expect(error.detail).toMatch(/got end of file, want '\)'/);
  });

  it('names a symbol the loaded file does not define', async () => {
    const error = await failure(star('load("lib.star", "imagee")', 'def main(ctx):', '  return {}'), {
      'lib.star': star('image = "alpine"'),
    });
    expect([error.file, error.line]).toEqual(['.drone.star', 1]);
    expect(error.detail).toMatch(/name imagee not found in module lib.star \(did you mean image\?\)/);
  });
});
