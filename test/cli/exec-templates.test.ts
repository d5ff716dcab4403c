/*
 * `svc exec` with `kind: template` documents: templates from --template-dir, or from the server
 * the API client talks to (SVC_SERVER, SVC_TOKEN) for --namespace or the origin remote's owner;
 * a templated pipeline run on the real Docker engine.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execCommand } from '../../src/cli/exec.js';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { loginAs, tokenOf } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { gitAs } from '../support/git-client.js';
import { runSvc } from '../support/svc-process.js';

const docker = await dockerForTests(['local/busybox']);

const TEMPLATE = `kind: pipeline
type: docker
name: {{ .input.name }}
{{- if .input.tagsOnly }}
trigger: {event: [tag]}
{{- end }}
steps:
{{- range .input.greetings }}
- name: say-{{ . }}
  image: local/busybox
  pull: if-not-exists
  commands: ["echo {{ upper . }} from {{ $.build.Trigger }} on \${DRONE_BRANCH}"]
{{- end }}
`;

const FILE = (tagsOnly = false) => `kind: template
load: greet.yaml
data:
  name: greetings
  tagsOnly: ${tagsOnly}
  greetings: [hello, bye]
`;

function workingCopy(file: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-exec-templates-'));
  writeFileSync(join(dir, '.drone.yml'), file);
  return dir;
}

async function exec(args: string[], cwd: string, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), cwd };
  const code = await execCommand(args, env, io);
  return { code, stdout, stderr };
}

describe('svc exec renders templates', () => {
  let h: Harness;
  let token = '';

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat', orgAdmin: ['acme'] });
    token = await tokenOf(h, await loginAs(h, 'octocat'));
    await h.store.templates.create({ namespace: 'acme', name: 'greet.yaml', data: TEMPLATE });
  });
  afterAll(() => h.close());

  it('says where templates can come from when neither a folder nor a server is given', async () => {
    const cwd = workingCopy(FILE(true));
    expect(await exec([], cwd)).toMatchObject({
      code: 1,
      stderr:
        'svc exec: the file loads templates (kind: template): give --template-dir DIR with them, or set SVC_SERVER and SVC_TOKEN to read them from the server\n',
    });
  });

  it('reads them from --template-dir, by name only', async () => {
    const cwd = workingCopy(FILE(true));
    mkdirSync(join(cwd, 'templates'));
    writeFileSync(join(cwd, 'templates', 'greet.yaml'), TEMPLATE);
    // A pipeline for tags only: rendered, linted, then nothing to run for a push.
    expect(await exec(['--template-dir', 'templates'], cwd)).toEqual({
      code: 0,
      stdout: 'pipeline "greetings" does not run for a push on main (its trigger): nothing to do\n',
      stderr: '',
    });
    const missing = await exec(['--template-dir', 'nowhere'], cwd);
    expect(missing).toMatchObject({
      code: 1,
      stderr: 'svc exec: template greet.yaml not found in folder nowhere (loaded at .drone.yml:2)\n',
    });
    writeFileSync(join(cwd, '.drone.yml'), FILE(true).replace('greet.yaml', '../greet.yaml'));
    expect((await exec(['--template-dir', 'templates'], cwd)).stderr).toBe(
      'svc exec: .drone.yml:2:7: load: "../greet.yaml" is not a single file name: no / or \\ allowed\n',
    );
  });

  it('reads them from the server for --namespace, or for the owner in the origin remote', async () => {
    const server = { SVC_SERVER: h.url, SVC_TOKEN: token };
    const cwd = workingCopy(FILE(true));
    expect(await exec(['--namespace', 'acme'], cwd, server)).toMatchObject({
      code: 0,
      stdout: 'pipeline "greetings" does not run for a push on main (its trigger): nothing to do\n',
    });
    const git = gitAs({ name: 'Octo Cat', email: 'octocat@example.com' });
    git(cwd, 'init', '-q', '-b', 'main');
    git(cwd, 'remote', 'add', 'origin', 'git@github.com:acme/app.git');
    expect((await exec([], cwd, server)).code).toBe(0);
    git(cwd, 'remote', 'set-url', 'origin', 'https://github.com/other-org/app.git');
    const refused = await exec([], cwd, server);
    expect(refused).toMatchObject({
      code: 1,
      stderr: 'svc exec: template greet.yaml: the server refused it: namespace other-org not found\n',
    });
    expect(
      (await exec(['--namespace', 'acme'], workingCopy(FILE(true).replace('greet', 'nope')), server)).stderr,
    ).toBe(`svc exec: template nope.yaml not found in namespace acme at ${h.url} (loaded at .drone.yml:2)\n`);
  });

  it('reports a template error with the template, line and column', async () => {
    const cwd = workingCopy(FILE());
    mkdirSync(join(cwd, 't'));
    writeFileSync(join(cwd, 't', 'greet.yaml'), 'kind: pipeline\nname: {{ .input.name | nosuch }}\n');
    expect(await exec(['--template-dir', 't'], cwd)).toMatchObject({
      code: 1,
      stderr: 'svc exec: template greet.yaml:2:24: function "nosuch" not defined (loaded at .drone.yml:2)\n',
    });
  });
});

describe.skipIf(docker.skip)('svc exec runs a templated pipeline on the real Docker engine', () => {
  it('runs the steps the template made', async () => {
    const cwd = workingCopy(FILE());
    mkdirSync(join(cwd, 'templates'));
    writeFileSync(join(cwd, 'templates', 'greet.yaml'), TEMPLATE);
    const result = await runSvc(['exec', '--template-dir', 'templates'], {
      cwd,
      env: { DOCKER_HOST: process.env.DOCKER_HOST ?? '' },
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/say-hello\s+│ HELLO from @exec on main/);
    expect(result.stdout).toMatch(/say-bye\s+│ BYE from @exec on main/);
    expect(await countMatching(docker.docker!, { label: ['io.svc.owner=svc-exec'] })).toEqual({
      containers: 0,
      networks: 0,
      volumes: 0,
    });
  });
});
