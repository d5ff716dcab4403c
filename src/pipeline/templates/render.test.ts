import { afterAll, describe, expect, it } from 'vitest';
import { languageFacts } from '../languages/facts.js';
import { PUSH_BUILD, REPO } from '../languages/facts.fixture.js';
import { JsonnetEvaluator } from '../languages/jsonnet/evaluator.js';
import { StarlarkEvaluator } from '../languages/starlark/evaluator.js';
import { lintText } from '../lint/lint.js';
import { TEMPLATE_LIMITS } from './limits.js';
import { TemplateError, TemplateRenderer, type TemplateRequest } from './render.js';

const starlark = new StarlarkEvaluator({ steps: 50_000, timeoutMs: 10_000 });
afterAll(() => starlark.close());
const jsonnet = JsonnetEvaluator.available()
  ? new JsonnetEvaluator({ timeoutMs: 10_000, maxStack: 500, imports: { files: 10, bytes: 100_000 } })
  : undefined;
const renderer = new TemplateRenderer({
  evaluators: { starlark, ...(jsonnet === undefined ? {} : { jsonnet }) },
  now: () => 1_700_000_000_000,
});

/* Drone's own test data (plugin/converter/testdata), in substance: the same inputs and outputs. */
const YAML_TEMPLATE = `kind: pipeline
type: docker
name: defaults
steps:
  - name:  {{ upper .input.stepName }}
    image: {{ .input.image }}
    commands:
      - {{ .input.commands }}`;

const STARLARK_TEMPLATE = `def main(ctx):
  return {
    "kind": "pipeline",
    "name": "build",
    "steps": [
      {
        "name": ctx.input.stepName,
        "image": ctx.input.image,
        "commands": [
            ctx.input.commands
        ]
      }
    ]
  }
`;

const JSONNET_TEMPLATE = `local stepName = std.extVar("input.stepName");
local image = std.extVar("input.image");
local commands = std.extVar("input.commands");
{
  "kind": "pipeline",
  "type": "docker",
  "name": "default",
  "steps": [{ "name": stepName, "image": image, "commands": [commands] }]
}
`;

const loading = (name: string) => `kind: template
load: ${name}
data:
  stepName: my_step
  image: my_image
  commands: my_command
`;

function request(text: string, templates: Record<string, string>): TemplateRequest {
  return {
    path: '.drone.yml',
    text,
    facts: languageFacts({ ...PUSH_BUILD, params: { DEPLOY: 'yes' } }, REPO),
    extras: { buildNumber: 42, repoId: 7 },
    load: (name) => Promise.resolve(Object.hasOwn(templates, name) ? templates[name] : undefined),
    source: 'namespace octo',
  };
}

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TemplateError);
  return (error as TemplateError).message;
}

describe('TemplateRenderer', () => {
  it('renders a YAML template as Drone does (its yaml.input test data)', async () => {
    const text = await renderer.render(request(loading('plugin.yaml'), { 'plugin.yaml': YAML_TEMPLATE }));
    expect(text).toBe(
      '---\nkind: pipeline\ntype: docker\nname: defaults\nsteps:\n  - name:  MY_STEP\n    image: my_image\n    commands:\n      - my_command\n',
    );
    expect(lintText(text ?? '', { trusted: false }).valid).toBe(true);
  });

  it('renders a Starlark template with ctx.input typed, as Drone does', async () => {
    const text = await renderer.render(
      request(loading('plugin.starlark'), { 'plugin.starlark': STARLARK_TEMPLATE }),
    );
    expect(text).toBe(
      '---\nkind: pipeline\nname: build\nsteps:\n  - name: my_step\n    image: my_image\n    commands:\n      - my_command\n',
    );
    const nested = `kind: template
load: nested.star
data:
  builds: {name: build, image: "mcr.microsoft.com/dotnet/sdk:5.0", commands: [dotnet build], retries: 2}
`;
    const template = `def main(ctx):\n  return {"kind": "pipeline", "name": "default", "steps": [ctx.input.builds], "n": type(ctx.input.builds["retries"])}\n`;
    expect(await renderer.render(request(nested, { 'nested.star': template }))).toBe(
      // A dict's keys come in sorted order (Go's map order is random in Drone).
      '---\nkind: pipeline\nname: default\nsteps:\n  - commands:\n      - dotnet build\n    image: mcr.microsoft.com/dotnet/sdk:5.0\n    name: build\n    retries: 2\n"n": int\n',
    );
  });

  it.runIf(jsonnet !== undefined)(
    'renders a Jsonnet template with input.<key> external variables, as Drone does',
    async () => {
      const text = await renderer.render(
        request(loading('plugin.jsonnet'), { 'plugin.jsonnet': JSONNET_TEMPLATE }),
      );
      expect(text).toBe(
        // Jsonnet writes an object's fields sorted, as in Drone's golden file.
        '---\nkind: pipeline\nname: default\nsteps:\n  - commands:\n      - my_command\n    image: my_image\n    name: my_step\ntype: docker\n',
      );
      // Nested values reach Jsonnet as Go prints them (fmt.Sprint), numbers as their text.
      const nested = 'kind: template\nload: n.jsonnet\ndata: {list: [a, b], map: {k: v}, n: 3}\n';
      const program =
        '{kind: "pipeline", name: std.extVar("input.list") + " " + std.extVar("input.map") + " " + std.extVar("input.n") + " " + std.extVar("build.commit")}';
      expect(await renderer.render(request(nested, { 'n.jsonnet': program }))).toContain(
        `name: "[a b] map[k:v] 3 ${PUSH_BUILD.after}"`,
      );
    },
  );

  it('gives YAML templates the build and repository as drone-go structs', async () => {
    const template =
      'kind: pipeline\nname: "{{ .repo.Slug }}-{{ .build.Number }}-{{ .build.Event }}-{{ .build.Target }}-{{ .build.Params.DEPLOY }}-{{ .repo.Private }}-{{ .repo.Secret }}"\n';
    const text = await renderer.render(request(loading('t.yml'), { 't.yml': template }));
    expect(text).toBe('---\nkind: pipeline\nname: "octo/hello-42-push-main-yes-false-"\n');
  });

  it('renders each template document in its place and keeps the other documents as written', async () => {
    const file = `# the build
kind: pipeline
name: first
steps: [{name: a, image: x}]
---
kind: template
load: one.yaml
data: {name: second}
---
kind: secret
name: token
get: {path: p, name: n}
---
kind: template
load: one.yaml
data: {name: third}
`;
    const text = await renderer.render(
      request(file, { 'one.yaml': 'kind: pipeline\nname: {{ .input.name }}\nsteps: [{name: b, image: y}]' }),
    );
    expect(text).toBe(`# the build
kind: pipeline
name: first
steps: [{name: a, image: x}]
---
kind: pipeline
name: second
steps: [{name: b, image: y}]
---
kind: secret
name: token
get: {path: p, name: n}
---
kind: pipeline
name: third
steps: [{name: b, image: y}]
`);
    expect(
      lintText(text ?? '', { trusted: false }).manifest.documents.map((d) => `${d.kind}:${d.name}`),
    ).toEqual(['pipeline:first', 'pipeline:second', 'secret:token', 'pipeline:third']);
  });

  it('leaves files without a template document alone', async () => {
    expect(await renderer.render(request('kind: pipeline\nname: x\n', {}))).toBeUndefined();
    expect(await renderer.render(request('kind: pipeline\nname: x\n# kind: template\n', {}))).toBeUndefined();
  });

  it('says which template is missing, and where the file loads it', async () => {
    expect(await failure(renderer.render(request(`---\n${loading('nope.yaml')}`, {})))).toBe(
      'template nope.yaml not found in namespace octo (loaded at .drone.yml:3)',
    );
  });

  it('refuses names that are not one file name with a template extension, before loading anything', async () => {
    const asked: string[] = [];
    const req = (name: string) => ({
      ...request(loading(name), {}),
      load: (n: string) => {
        asked.push(n);
        return Promise.resolve(undefined);
      },
    });
    expect(await failure(renderer.render(req('../other/plugin.yaml')))).toBe(
      '.drone.yml:2:7: load: "../other/plugin.yaml" is not a single file name: no / or \\ allowed',
    );
    expect(await failure(renderer.render(req('plugin.txt')))).toMatch(
      /^\.drone\.yml:2:7: load: "plugin\.txt" has no template extension; expected \.yml or \.yaml/,
    );
    expect(await failure(renderer.render(request('kind: template\ndata: {a: 1}\n', {})))).toBe(
      '.drone.yml:1:1: load: is required; expected the name of the template, e.g. load: plugin.yaml',
    );
    expect(asked).toEqual([]);
  });

  it('names the template, line and column when a template fails, in each language', async () => {
    expect(
      await failure(
        renderer.render(request(loading('bad.yaml'), { 'bad.yaml': 'kind: pipeline\nname: {{ nope }}\n' })),
      ),
    ).toBe('template bad.yaml:2:10: function "nope" not defined (loaded at .drone.yml:2)');
    expect(
      await failure(
        renderer.render(
          request(loading('bad.yaml'), { 'bad.yaml': 'name: {{ .input.stepName.x.y | len }}\n' }),
        ),
      ),
    ).toBe(
      'template bad.yaml:1:10: executing "bad.yaml" at <.input.stepName.x.y>: can\'t evaluate field x in type string (loaded at .drone.yml:2)',
    );
    expect(
      await failure(
        renderer.render(
          request(loading('bad.star'), { 'bad.star': 'def main(ctx):\n  return ctx.input.nope\n' }),
        ),
      ),
    ).toBe('template bad.star:2:19: "input" struct has no .nope attribute (loaded at .drone.yml:2)');
    if (jsonnet !== undefined)
      expect(
        await failure(
          renderer.render(
            request(loading('bad.jsonnet'), { 'bad.jsonnet': '{a: std.extVar("input.nope")}' }),
          ),
        ),
      ).toBe('template bad.jsonnet:1:5: undefined external variable: input.nope (loaded at .drone.yml:2)');
  });

  it('says which setting enables a program language that is off', async () => {
    const off = new TemplateRenderer({
      evaluators: {},
      unavailable: { starlark: 'they are enabled with SVC_TMPLSCRIPT_ENABLED=true' },
    });
    expect(await failure(off.render(request(loading('p.star'), { 'p.star': STARLARK_TEMPLATE })))).toBe(
      'template p.star: Starlark templates are not rendered here: they are enabled with SVC_TMPLSCRIPT_ENABLED=true (loaded at .drone.yml:2)',
    );
    expect(await off.render(request(loading('p.yaml'), { 'p.yaml': 'kind: pipeline' }))).toBe(
      '---\nkind: pipeline\n',
    );
  });

  it('lets templates neither import files nor load templates', async () => {
    expect(
      await failure(
        renderer.render(
          request(loading('i.star'), { 'i.star': 'load("lib.star", "x")\ndef main(ctx):\n  return {}\n' }),
        ),
      ),
    ).toMatch(/^template i\.star.*a template cannot import or load other files \(lib\.star\)/);
    expect(
      await failure(
        renderer.render(
          request(loading('outer.yaml'), { 'outer.yaml': 'kind: template\nload: inner.yaml\n' }),
        ),
      ),
    ).toBe(
      'template outer.yaml produced a kind: template document; a template cannot load templates (loaded at .drone.yml:2)',
    );
  });

  it('bounds templates: their size, their output, their work and how many a file loads', async () => {
    const small = new TemplateRenderer({
      evaluators: { starlark },
      limits: { ...TEMPLATE_LIMITS, templateBytes: 100, outputBytes: 200, documents: 2 },
    });
    expect(
      await failure(small.render(request(loading('big.yaml'), { 'big.yaml': `# ${'x'.repeat(100)}` }))),
    ).toBe('template big.yaml is larger than 100 bytes (a limit of templates) (loaded at .drone.yml:2)');
    expect(
      await failure(
        small.render(
          request(loading('loop.yaml'), {
            'loop.yaml':
              '{{ range .input }}{{ range $.input }}xxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}{{ end }}',
          }),
        ),
      ),
    ).toMatch(/^template loop\.yaml:1:\d+: the output is larger than the limit of 200 bytes/);
    const three = [1, 2, 3].map(() => 'kind: template\nload: a.yaml\n').join('---\n');
    expect(await failure(small.render(request(three, { 'a.yaml': 'kind: pipeline' })))).toBe(
      '.drone.yml: 3 kind: template documents; at most 2 are rendered in one file',
    );
    const recursive = '{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}';
    expect(await failure(renderer.render(request(loading('r.yaml'), { 'r.yaml': recursive })))).toMatch(
      /^template r\.yaml:1:\d+: exceeded maximum template depth \(100\)/,
    );
  });
});
