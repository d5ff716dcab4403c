/**
 * `kind: template` documents on the server: the trigger renders them from the templates of the
 * repository's own namespace (the store), before `${…}` substitution, lint and trigger selection;
 * a missing or failing template makes an error build that names it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../core/repo.js';
import { LANGUAGE_LIMITS } from '../../pipeline/languages/limits.js';
import { StarlarkEvaluator } from '../../pipeline/languages/starlark/evaluator.js';
import { TemplateRenderer } from '../../pipeline/templates/index.js';
import { pushHook, triggerFixture, type TriggerFixture } from './testing.case.js';
import { Trigger, type TriggerDeps } from './trigger.js';

const PLUGIN = `kind: pipeline
type: docker
name: {{ .input.name }}
steps:
{{- range .input.steps }}
- name: {{ . }}
  image: {{ $.input.image }}
  commands: ["echo {{ . }} $\{DRONE_BUILD_NUMBER} {{ $.build.Number }} {{ $.repo.Slug }}"]
{{- end }}
`;

const FILE = `kind: template
load: plugin.yaml
data:
  name: templated
  image: alpine:3
  steps: [lint, test]
`;

describe('Trigger with templates', () => {
  let fixture: TriggerFixture;
  let repo: Repo;
  let deps: TriggerDeps;
  const starlark = new StarlarkEvaluator(LANGUAGE_LIMITS.starlark);

  beforeAll(async () => {
    fixture = await triggerFixture();
    ({ repo } = fixture);
    deps = {
      ...fixture.deps,
      templates: {
        renderer: new TemplateRenderer({ evaluators: { starlark } }),
        store: fixture.store.templates,
      },
    };
    await fixture.store.templates.create({ namespace: 'octocat', name: 'plugin.yaml', data: PLUGIN });
  });
  afterAll(async () => {
    await starlark.close();
    await fixture.close();
  });

  const push = (files: Record<string, string>) =>
    pushHook(fixture.github.commit('octocat/app', 'main', files));

  it('builds the pipelines a template of the namespace renders, and stores the rendered file', async () => {
    const result = await new Trigger(deps).trigger(repo, push({ '.drone.yml': FILE }));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.build.status, result.build.error).toBe('pending');
    expect(result.stages.map((stage) => stage.name)).toEqual(['templated']);
    const n = result.build.number;
    expect(result.build.config).toContain(`commands: ["echo lint ${n} ${n} octocat/app"]`);
    expect(result.build.config).toContain(`commands: ["echo test ${n} ${n} octocat/app"]`);
    expect(result.build.config).not.toContain('kind: template');
  });

  it('renders Starlark templates too, with ctx.input', async () => {
    await fixture.store.templates.create({
      namespace: 'octocat',
      name: 'go.star',
      data: 'def main(ctx):\n  return [{"kind": "pipeline", "name": "go-" + v, "steps": [{"name": "t", "image": "golang:" + v}]} for v in ctx.input.versions]\n',
    });
    const file = 'kind: template\nload: go.star\ndata: {versions: ["1.22", "1.23"]}\n';
    const result = await new Trigger(deps).trigger(repo, push({ '.drone.yml': file }));
    if (result.kind !== 'created') throw new Error(`no build: ${result.reason}`);
    expect(result.stages.map((stage) => stage.name)).toEqual(['go-1.22', 'go-1.23']);
  });

  it('makes an error build naming a template the namespace does not have', async () => {
    const result = await new Trigger(deps).trigger(
      repo,
      push({ '.drone.yml': FILE.replace('plugin.yaml', 'missing.yaml') }),
    );
    expect(result).toMatchObject({
      kind: 'created',
      build: {
        status: 'error',
        error: 'template missing.yaml not found in namespace octocat (loaded at .drone.yml:2)',
      },
    });
  });

  it('never loads another namespace’s template, even one of the same name', async () => {
    await fixture.store.templates.create({ namespace: 'other', name: 'theirs.yaml', data: PLUGIN });
    const result = await new Trigger(deps).trigger(
      repo,
      push({ '.drone.yml': FILE.replace('plugin.yaml', 'theirs.yaml') }),
    );
    expect(result).toMatchObject({ kind: 'created', build: { status: 'error' } });
    if (result.kind === 'created')
      expect(result.build.error).toBe(
        'template theirs.yaml not found in namespace octocat (loaded at .drone.yml:2)',
      );
  });

  it('never loads a template of a namespace that had the name before (another provider id)', async () => {
    await fixture.store.templates.create({
      namespace: 'octocat',
      name: 'former.yaml',
      data: PLUGIN,
      namespaceUid: `not-${repo.namespaceUid}`,
    });
    const result = await new Trigger(deps).trigger(
      repo,
      push({ '.drone.yml': FILE.replace('plugin.yaml', 'former.yaml') }),
    );
    expect(result).toMatchObject({ kind: 'created', build: { status: 'error' } });
    if (result.kind === 'created')
      expect(result.build.error).toBe(
        'template former.yaml not found in namespace octocat (loaded at .drone.yml:2)',
      );
  });

  it('makes an error build naming the template, line and column of a template that fails', async () => {
    await fixture.store.templates.create({
      namespace: 'octocat',
      name: 'broken.yaml',
      data: 'kind: pipeline\nname: {{ .input.name | nosuchfunc }}\n',
    });
    const result = await new Trigger(deps).trigger(
      repo,
      push({ '.drone.yml': FILE.replace('plugin.yaml', 'broken.yaml') }),
    );
    expect(result).toMatchObject({
      kind: 'created',
      build: {
        status: 'error',
        error: 'template broken.yaml:2:24: function "nosuchfunc" not defined (loaded at .drone.yml:2)',
      },
    });
  });

  it('lints what the template produced, naming the file as rendered', async () => {
    await fixture.store.templates.create({
      namespace: 'octocat',
      name: 'noimage.yaml',
      data: 'kind: pipeline\nname: x\nsteps:\n- name: s\n  commands: [true]\n',
    });
    const result = await new Trigger(deps).trigger(
      repo,
      push({ '.drone.yml': FILE.replace('plugin.yaml', 'noimage.yaml') }),
    );
    expect(result).toMatchObject({ kind: 'created', build: { status: 'error' } });
    if (result.kind === 'created') expect(result.build.error).toMatch(/^\.drone\.yml: .*image/);
  });
});
