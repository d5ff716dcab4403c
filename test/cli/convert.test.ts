import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { JsonnetEvaluator } from '../../src/pipeline/languages/jsonnet/evaluator.js';
import { runSvc } from '../support/svc-process.js';

const docker = await dockerForTests(['local/busybox']);

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-convert-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

const STAR = {
  '.drone.star': `load("ci/steps.star", "step")

def main(ctx):
    return [pipeline(ctx.build.event, ctx.build.branch)]

def pipeline(event, branch):
    return {"kind": "pipeline", "type": "docker", "name": "on-" + event,
            "clone": {"disable": True},
            "steps": [step("hello", "echo event=" + event + " branch=" + branch)]}
`,
  'ci/steps.star': `def step(name, command):
    return {"name": name, "image": "local/busybox", "commands": [command], "environment": {"FLAG": "yes"}}
`,
};

const JSONNET = {
  '.drone.jsonnet': `local lib = import "ci/lib.libsonnet";
[lib.pipeline(std.extVar("build.event")), { kind: "secret", name: "token", get: { path: "a", name: "b" } }]
`,
  'ci/lib.libsonnet': `{ pipeline(event):: { kind: "pipeline", name: "on-" + event, steps: [{ name: "a", image: "alpine", commands: ["echo yes"] }] } }
`,
};

const docs = (text: string): unknown[] =>
  parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as unknown);

describe('svc convert, lint and exec with Starlark and Jsonnet files', () => {
  it('prints the YAML of a .star file, loads included, as a tag of the given branch', async () => {
    const cwd = folder(STAR);
    const result = await runSvc(['convert', '--event', 'tag', '--branch', 'v1', '.drone.star'], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(docs(result.stdout)).toEqual([
      {
        kind: 'pipeline',
        type: 'docker',
        name: 'on-tag',
        clone: { disable: true },
        steps: [
          {
            name: 'hello',
            image: 'local/busybox',
            commands: ['echo event=tag branch=v1'],
            environment: { FLAG: 'yes' },
          },
        ],
      },
    ]);
    // YAML 1.1 reads "yes" as true unless quoted: the string survives.
    expect(result.stdout).toContain('FLAG: "yes"');
  });

  it.runIf(JsonnetEvaluator.available())(
    'prints the documents of a .jsonnet file, imports included',
    async () => {
      const result = await runSvc(['convert', '.drone.jsonnet'], { cwd: folder(JSONNET) });
      expect(result.code).toBe(0);
      expect(docs(result.stdout).map((doc) => (doc as { kind: string; name: string }).name)).toEqual([
        'on-push',
        'token',
      ]);
    },
  );

  it('fails with the file, line and column of a program error, exit 1', async () => {
    const cwd = folder({ '.drone.star': 'def main(ctx):\n    return ctx.build.number\n' });
    const result = await runSvc(['convert', '.drone.star'], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\.drone\.star:2:\d+: .*has no \.number attribute/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('lints what a program produces, naming the converted file', async () => {
    const bad = folder({
      '.drone.star':
        'def main(ctx):\n    return {"kind": "pipeline", "name": "x", "steps": [{"name": "a"}]}\n',
    });
    const result = await runSvc(['lint', '.drone.star'], { cwd: bad });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^\.drone\.star \(as converted\):\d+:\d+: error: /m);
    const good = await runSvc(['lint', '.drone.star'], { cwd: folder(STAR) });
    expect(good.code).toBe(0);
  });

  it.skipIf(docker.skip)(
    'runs a .star pipeline with svc exec, substituted as on the server',
    async () => {
      const cwd = folder(STAR);
      const result = await runSvc(['exec', '.drone.star'], {
        cwd,
        env: { DOCKER_HOST: process.env.DOCKER_HOST ?? '' },
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('event=push branch=');
    },
    60_000,
  );
});
