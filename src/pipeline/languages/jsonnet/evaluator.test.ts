import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { languageFacts } from '../facts.js';
import { ConfigLanguageError, type LanguageRequest } from '../types.js';
import { JsonnetEvaluator } from './evaluator.js';
import { PUSH_BUILD, REPO } from '../facts.fixture.js';

const LIMITS = { timeoutMs: 10_000, maxStack: 500, imports: { files: 10, bytes: 100_000 } };
const evaluator = new JsonnetEvaluator(LIMITS);
const reads: string[] = [];
afterAll(() => reads.splice(0));

function request(
  source: string,
  files: Record<string, string> = {},
  path = '.drone.jsonnet',
): LanguageRequest {
  return {
    path,
    source,
    facts: languageFacts({ ...PUSH_BUILD, params: { DEPLOY: 'yes' } }, REPO),
    read: (file) => {
      reads.push(file);
      return Promise.resolve(files[file]);
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ConfigLanguageError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigLanguageError);
  return error as ConfigLanguageError;
}

describe.runIf(JsonnetEvaluator.available())('JsonnetEvaluator', () => {
  it("gives the program Drone's external variables, parameters included", async () => {
    const source = `{
      event: std.extVar("build.event"), branch: std.extVar("build.branch"),
      commit: std.extVar("build.commit"), slug: std.extVar("repo.slug"),
      private: std.extVar("repo.private"), deploy: std.extVar("build.param.DEPLOY"),
    }`;
    expect(await evaluator.evaluate(request(source))).toEqual([
      {
        event: 'push',
        branch: 'main',
        commit: PUSH_BUILD.after,
        slug: 'octo/hello',
        private: 'false',
        deploy: 'yes',
      },
    ]);
  });

  it('turns a top-level array into one document per element', async () => {
    const documents = await evaluator.evaluate(
      request('[{ kind: "pipeline", name: "a" }, { kind: "secret" }]'),
    );
    expect(documents).toEqual([{ kind: 'pipeline', name: 'a' }, { kind: 'secret' }]);
  });

  it('imports from the root in the program, relative to the importing file in imported files', async () => {
    const files = {
      'ci/lib/steps.libsonnet': 'local v = import "../version.libsonnet"; { step(n): { name: n, image: v } }',
      'ci/version.libsonnet': 'importstr "version.txt"',
      'ci/version.txt': 'alpine:3.20',
    };
    const source = 'local s = import "ci/lib/steps.libsonnet"; { steps: [s.step("a")] }';
    expect(await evaluator.evaluate(request(source, files, 'ci/main.jsonnet'))).toEqual([
      { steps: [{ name: 'a', image: 'alpine:3.20' }] },
    ]);
  });

  it('refuses imports that leave the repository before anything runs', async () => {
    for (const source of [
      'import "/etc/passwd"',
      'import "\\u002fetc/hostname"',
      'importstr "../../etc/passwd"',
    ]) {
      const error = await failure(evaluator.evaluate(request(`{ a: ${source} }`)));
      expect(error.message).toMatch(
        /^\.drone\.jsonnet:1:6: import.* only files of the repository can be imported/,
      );
    }
  });

  // config_path is the program's own path: svc writes the program under its folder by it.
  it('refuses a program whose path leaves the repository, and writes nothing outside its folder', async () => {
    const marker = join(tmpdir(), `svc-jsonnet-escape-${process.pid}.jsonnet`);
    const path = `../../../../../../../../..${marker}`;
    const error = await failure(evaluator.evaluate(request('{ a: 1 }', {}, path)));
    expect(error.message).toContain('has a "." or ".." folder');
    expect(existsSync(marker)).toBe(false);
  });

  it('names a missing import', async () => {
    const error = await failure(evaluator.evaluate(request('\nimport "nope.libsonnet"')));
    expect(error.message).toBe(
      '.drone.jsonnet:2:1: import "nope.libsonnet": no file nope.libsonnet in the repository at this commit',
    );
  });

  it('reports a syntax error at its file, line and column', async () => {
    const error = await failure(evaluator.evaluate(request('{\n  a: ,\n}')));
    expect([error.file, error.line, error.column]).toEqual(['.drone.jsonnet', 2, 6]);
  });

  it('reports a runtime error where it is raised, in an imported file, with its callers', async () => {
    const files = { 'lib.libsonnet': '{\n  v: error "no image for " + std.extVar("build.event"),\n}' };
    const error = await failure(
      evaluator.evaluate(request('local l = import "lib.libsonnet";\n{ a: l.v }', files)),
    );
    expect(error.message).toMatch(/^lib\.libsonnet:2:6: no image for push\n {2}from \.drone\.jsonnet:2:6/);
  });

  it('stops deep recursion at the stack limit', async () => {
    const error = await failure(evaluator.evaluate(request('local f(n) = f(n + 1) + 1;\nf(0)')));
    expect(error.message).toMatch(/max stack frames exceeded/);
  });

  it('kills an evaluation at the time limit, and the next one runs', async () => {
    const quick = new JsonnetEvaluator({ ...LIMITS, timeoutMs: 1_500 });
    const started = Date.now();
    const error = await failure(
      quick.evaluate(request('std.foldl(function(a, b) a + b, std.range(1, 100000000), 0)')),
    );
    expect(error.message).toBe('.drone.jsonnet: evaluation ran longer than 1500 ms');
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(await quick.evaluate(request('{ ok: true }'))).toEqual([{ ok: true }]);
  });

  it('bounds how many files a program may import', async () => {
    const files = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${i}.libsonnet`, `${i}`]));
    const source = `[${Array.from({ length: 20 }, (_, i) => `import "f${i}.libsonnet"`).join(', ')}]`;
    const error = await failure(evaluator.evaluate(request(source, files)));
    expect(error.message).toMatch(/more than 10 files imported/);
  });
});
