import { afterAll, describe, expect, it } from 'vitest';
import { ConfigLanguageError } from '../types.js';
import { StarlarkEvaluator } from './evaluator.js';
import { star, starlarkRequest } from './testing.case.js';

const evaluator = new StarlarkEvaluator({ steps: 50_000, timeoutMs: 10_000 });
afterAll(() => evaluator.close());

const evaluate = (source: string) => evaluator.evaluate(starlarkRequest(source));

describe('StarlarkEvaluator documents', () => {
  it('takes a dict returned by main(ctx) as the one document', async () => {
    const documents = await evaluate(
      star(
        'def main(ctx):',
        '  return {"kind": "pipeline", "name": "build", "steps": [{"name": "test", "image": "node:24"}]}',
      ),
    );
    expect(documents).toEqual([
      { kind: 'pipeline', name: 'build', steps: [{ name: 'test', image: 'node:24' }] },
    ]);
  });

  it('takes each item of a returned list as a document, in order', async () => {
    const documents = await evaluate(
      star(
        'def pipeline(name):',
        '  return {"kind": "pipeline", "name": name}',
        'def main(ctx):',
        '  return [pipeline("lint"), pipeline("test"), {"kind": "secret", "name": "token"}]',
      ),
    );
    expect(documents).toEqual([
      { kind: 'pipeline', name: 'lint' },
      { kind: 'pipeline', name: 'test' },
      { kind: 'secret', name: 'token' },
    ]);
  });

  it('keeps the order in which the program inserted keys', async () => {
    const [document] = await evaluate(
      star('def main(ctx):', '  return {"zeta": 1, "alpha": 2, "steps": [{"name": "b", "image": "a"}]}'),
    );
    expect(Object.keys(document as object)).toEqual(['zeta', 'alpha', 'steps']);
    expect(Object.keys((document as { steps: object[] }).steps[0]!)).toEqual(['name', 'image']);
  });

  it('writes values as Drone does: tuples and ranges as lists, 2.0 as 2, None as null', async () => {
    const [document] = await evaluate(
      star(
        'def main(ctx):',
        '  return {"tuple": (1, "a"), "range": range(3), "float": 2.0, "half": 0.5, "none": None,',
        '          "yes": True, "big": 12345678901234, "text": "tab\\tquote\\" <b>&", 1: "int key"}',
      ),
    );
    expect(document).toEqual({
      tuple: [1, 'a'],
      range: [0, 1, 2],
      float: 2,
      half: 0.5,
      none: null,
      yes: true,
      big: 12345678901234,
      text: 'tab\tquote" <b>&',
      1: 'int key',
    });
  });

  it('refuses a value that has no JSON form, such as a function', async () => {
    const error = await evaluate(star('def main(ctx):', '  return {"f": main}')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigLanguageError);
    expect((error as ConfigLanguageError).detail).toMatch(/can't be converted to JSON/);
  });
});

describe('StarlarkEvaluator ctx', () => {
  /** Returns {field: [type, value]} for every field of ctx.<member>. */
  const describeMember = (member: string) =>
    star(
      'def main(ctx):',
      `  value = ctx.${member}`,
      '  return {name: [type(getattr(value, name)), getattr(value, name)] for name in dir(value)}',
    );

  it('gives ctx.build every field Drone gives, strings but debug (bool) and params (dict)', async () => {
    const [build] = await evaluate(describeMember('build'));
    expect(build).toEqual({
      action: ['string', ''],
      after: ['string', '553c2077f0edc3d5dc5d17262f6aa498e69d6f8e'],
      author_avatar: ['string', 'https://avatars.githubusercontent.com/u/583231?v=4'],
      author_email: ['string', 'octocat@github.com'],
      author_login: ['string', 'octocat'],
      author_name: ['string', 'The Octocat'],
      before: ['string', '7fd1a60b01f91b314f59955a4e4d4e80d8edf11d'],
      branch: ['string', 'main'],
      commit: ['string', '553c2077f0edc3d5dc5d17262f6aa498e69d6f8e'],
      cron: ['string', 'nightly'],
      debug: ['bool', true],
      environment: ['string', ''],
      event: ['string', 'push'],
      link: ['string', 'https://github.com/octocat/hello-world/compare/7fd1a60b01f9...553c2077f0ed'],
      message: ['string', 'Update README.md'],
      params: ['dict', { DRY_RUN: 'false', TARGET: 'production' }],
      ref: ['string', 'refs/heads/main'],
      sender: ['string', 'octocat'],
      source: ['string', 'main'],
      source_repo: ['string', ''],
      target: ['string', 'main'],
      title: ['string', ''],
    });
  });

  it('gives ctx.repo every field Drone gives', async () => {
    const [repo] = await evaluate(describeMember('repo'));
    expect(repo).toEqual({
      active: ['bool', true],
      branch: ['string', 'main'],
      config: ['string', '.drone.star'],
      git_http_url: ['string', 'https://github.com/octocat/hello-world.git'],
      git_ssh_url: ['string', 'git@github.com:octocat/hello-world.git'],
      ignore_forks: ['bool', false],
      ignore_pull_requests: ['bool', true],
      link: ['string', 'https://github.com/octocat/hello-world'],
      name: ['string', 'hello-world'],
      namespace: ['string', 'octocat'],
      private: ['bool', false],
      protected: ['bool', true],
      slug: ['string', 'octocat/hello-world'],
      trusted: ['bool', false],
      uid: ['string', '1296269'],
      visibility: ['string', 'public'],
    });
  });

  it('gives an empty ctx.input, as Drone does for a .drone.star file (it fills it for templates only)', async () => {
    const [input] = await evaluate(describeMember('input'));
    expect(input).toEqual({});
    const [kinds] = await evaluate(
      star('def main(ctx):', '  return {n: type(getattr(ctx, n)) for n in dir(ctx)}'),
    );
    expect(kinds).toEqual({ build: 'struct', input: 'struct', repo: 'struct' });
  });
});
