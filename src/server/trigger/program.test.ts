/**
 * Jsonnet and Starlark pipeline files on the server (SVC_TMPLJSON_ENABLED, SVC_TMPLSCRIPT_ENABLED):
 * the trigger reads the program and the files it imports from the provider (the GitHub double) at
 * the pushed commit, builds the YAML it produces, and records program errors on an error build.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../core/repo.js';
import { PipelineLanguages } from '../../pipeline/languages/index.js';
import { JsonnetEvaluator } from '../../pipeline/languages/jsonnet/evaluator.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import { pushHook, triggerFixture, type TriggerFixture } from './testing.case.js';
import { Trigger, type TriggerDeps } from './trigger.js';

const hookFor = pushHook;

describe('Trigger with SVC_TMPLSCRIPT_ENABLED and SVC_TMPLJSON_ENABLED', () => {
  let fixture: TriggerFixture;
  let github: TriggerFixture['github'];
  let repo: Repo;
  let deps: TriggerDeps;
  const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);

  beforeAll(async () => {
    fixture = await triggerFixture();
    ({ github, repo } = fixture);
    deps = {
      ...fixture.deps,
      languages: new PipelineLanguages({
        starlark,
        ...(JsonnetEvaluator.available() ? { jsonnet: new JsonnetEvaluator(LANGUAGE_LIMITS.jsonnet) } : {}),
      }),
    };
  });
  afterAll(async () => {
    await starlark.close();
    await fixture.close();
  });

  it('builds what a .drone.star file produces, with load() of a file at the same commit', async () => {
    const sha = github.commit('octocat/app', 'main', {
      '.drone.star':
        'load("ci/lib.star", "steps")\n\ndef main(ctx):\n    return {"kind": "pipeline", "name": ctx.build.branch, "steps": steps(ctx.build.commit)}\n',
      'ci/lib.star':
        'def steps(commit):\n    return [{"name": "echo", "image": "alpine", "commands": ["echo " + commit[:7] + " ${DRONE_BUILD_NUMBER}"]}]\n',
    });
    const result = await new Trigger(deps).trigger({ ...repo, configPath: '.drone.star' }, hookFor(sha));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.build.status).toBe('pending');
    expect(result.stages.map((stage) => stage.name)).toEqual(['main']);
    // The produced YAML is stored, with the build variables substituted as in any file.
    expect(result.build.config).toContain(`echo ${sha.slice(0, 7)} ${result.build.number}`);
  });

  it.runIf(JsonnetEvaluator.available())('builds the documents of a .drone.jsonnet file', async () => {
    const sha = github.commit('octocat/app', 'main', {
      '.drone.jsonnet':
        'local p(n) = { kind: "pipeline", name: n, steps: [{ name: "s", image: "alpine", commands: ["true"] }] };\n[p("a"), p("b-" + std.extVar("build.event"))]\n',
    });
    const result = await new Trigger(deps).trigger({ ...repo, configPath: '.drone.jsonnet' }, hookFor(sha));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.stages.map((stage) => stage.name)).toEqual(['a', 'b-push']);
  });

  it('records a program error with its file, line and column on an error build', async () => {
    const sha = github.commit('octocat/app', 'main', {
      '.drone.star': 'def main(ctx):\n    return ctx.build.number\n',
    });
    const result = await new Trigger(deps).trigger({ ...repo, configPath: '.drone.star' }, hookFor(sha));
    expect(result).toMatchObject({ kind: 'created', build: { status: 'error' } });
    if (result.kind !== 'created') return;
    expect(result.build.error).toMatch(/^\.drone\.star:2:\d+: .*has no \.number attribute/);
  });

  it('says which setting enables a language that is off', async () => {
    const sha = github.commit('octocat/app', 'main', { '.drone.star': 'def main(ctx):\n    return {}\n' });
    const off = new Trigger({ ...deps, languages: new PipelineLanguages({}) });
    const result = await off.trigger({ ...repo, configPath: '.drone.star' }, hookFor(sha));
    expect(result).toMatchObject({ kind: 'created', build: { status: 'error' } });
    if (result.kind === 'created') expect(result.build.error).toContain('SVC_TMPLSCRIPT_ENABLED=true');
  });
});
