import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { gitAs } from '../support/git-client.js';
import { finished, runSvc, startSvc } from '../support/svc-process.js';

const docker = await dockerForTests(['local/busybox']);
const OWNER = { label: ['io.svc.owner=svc-exec'] };
const SECRET = 'hunter2-very-secret';

/** A working copy holding `pipeline` as .drone.yml. */
function workingCopy(pipeline: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-exec-'));
  writeFileSync(join(dir, '.drone.yml'), pipeline);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

const env = (): Record<string, string> => ({ DOCKER_HOST: process.env.DOCKER_HOST ?? '' });

const FULL = `
kind: pipeline
type: docker
name: default

services:
- name: web
  image: local/busybox
  commands:
  - mkdir -p /www && echo served-by-service > /www/index.html
  - httpd -f -p 8080 -h /www

steps:
- name: wait-for-web
  image: local/busybox
  commands:
  - for i in $(seq 1 50); do wget -q -O - http://web:8080/ && exit 0; sleep 0.1; done; exit 1
- name: left
  image: local/busybox
  depends_on: [wait-for-web]
  commands: [ "echo left-ran > left.txt" ]
- name: right
  image: local/busybox
  depends_on: [wait-for-web]
  environment:
    TOKEN: { from_secret: token }
  commands:
  - echo "the token is $TOKEN"
  - cat input.txt
- name: plugin
  image: local/busybox
  depends_on: [left, right]
  settings:
    greeting: hello
    targets: [a, b]
  entrypoint: [ "/bin/sh", "-c", "echo PLUGIN_GREETING=$PLUGIN_GREETING PLUGIN_TARGETS=$PLUGIN_TARGETS" ]
- name: flaky
  image: local/busybox
  depends_on: [plugin]
  failure: ignore
  commands: [ "echo about to fail", "exit 3", "echo never printed" ]
- name: on-failure-only
  image: local/busybox
  depends_on: [flaky]
  when: { status: [failure] }
  commands: [ "echo this must not run" ]
- name: done
  image: local/busybox
  depends_on: [flaky]
  commands: [ "cat left.txt", "echo all done" ]
`;

describe.skipIf(docker.skip)('svc exec on the real Docker engine', () => {
  beforeAll(async () => {
    if (docker.docker) expect(await countMatching(docker.docker, OWNER)).toMatchObject({ containers: 0 });
  });

  it('runs a pipeline with a service, parallel steps, a secret, a plugin and an ignored failure', async () => {
    const cwd = workingCopy(FULL, { 'input.txt': 'from the working copy\n' });
    const result = await runSvc(['exec', '--secret', `token=${SECRET}`], { cwd, env: env() });
    expect(result.stderr).not.toContain('error:');
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/wait-for-web\s+│ served-by-service/);
    expect(out).toMatch(/right\s+│ the token is \*{8}/);
    expect(out).not.toContain(SECRET);
    expect(out).toMatch(/right\s+│ from the working copy/);
    expect(out).toMatch(/plugin\s+│ PLUGIN_GREETING=hello PLUGIN_TARGETS=a,b/);
    expect(out).toMatch(/flaky\s+│ \+ exit 3/);
    expect(out).not.toContain('never printed');
    expect(out).not.toContain('this must not run');
    expect(out).toMatch(/done\s+│ left-ran/);
    // The summary: every step with its status, the ignored failure said as such.
    expect(out).toMatch(/Summary\n/);
    expect(out).toMatch(/✗ flaky\s+failure\s+\d+\.\ds\s+exit code 3; failure ignored/);
    expect(out).toMatch(/- on-failure-only\s+skipped/);
    expect(out).toMatch(/✓ pipeline success in \d+\.\ds/);
    // The working copy is the workspace: steps wrote into it.
    expect(readFileSync(join(cwd, 'left.txt'), 'utf8')).toBe('left-ran\n');
    expect(await countMatching(docker.docker!, OWNER)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });

  it('keeps steps’ caches in a local folder: a second working copy restores the first one’s', async () => {
    const pipeline = `
kind: pipeline
type: docker
name: default
steps:
- name: deps
  image: local/busybox
  cache:
    key: deps-{{ checksum "lock" }}
    paths: [deps]
  commands:
  - test -f deps/made && echo "restored $(cat deps/made)" || echo cold
  - mkdir -p deps && echo first > deps/made
`;
    const caches = mkdtempSync(join(tmpdir(), 'svc-exec-caches-'));
    const first = await runSvc(['exec', '--cache-dir', caches], {
      cwd: workingCopy(pipeline, { lock: 'v1' }),
      env: env(),
    });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toMatch(/deps\s+│ cold/);
    expect(first.stdout).toMatch(/deps\s+│ cache: saved "deps-[0-9a-f]{64}" \(deps\)/);
    const second = await runSvc(['exec', '--cache-dir', caches], {
      cwd: workingCopy(pipeline, { lock: 'v1' }),
      env: env(),
    });
    expect(second.stdout).toMatch(/deps\s+│ cache: restored "deps-[0-9a-f]{64}"/);
    expect(second.stdout).toMatch(/deps\s+│ restored first/);
    const without = await runSvc(['exec', '--no-cache'], {
      cwd: workingCopy(pipeline, { lock: 'v1' }),
      env: env(),
    });
    expect(without.stdout).toMatch(/deps\s+│ cache: not used: this runner keeps no caches/);
    expect(without.stdout).toMatch(/deps\s+│ cold/);
  }, 120_000);

  it('fails with exit 1 and runs the on-failure steps', async () => {
    const cwd = workingCopy(`
kind: pipeline
type: docker
name: default
steps:
- name: broken
  image: local/busybox
  commands: [ "exit 2" ]
- name: after
  image: local/busybox
  commands: [ "echo not reached" ]
- name: report
  image: local/busybox
  when: { status: [failure] }
  commands: [ "echo reporting the failure" ]
`);
    const result = await runSvc(['exec'], { cwd, env: env() });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/report\s+│ reporting the failure/);
    expect(result.stdout).not.toContain('not reached');
    expect(result.stdout).toMatch(/✗ pipeline failure/);
  });

  it('ends early as a success on exit code 78', async () => {
    const cwd = workingCopy(`
kind: pipeline
type: docker
name: default
steps:
- name: check
  image: local/busybox
  commands: [ "echo nothing to do", "exit 78" ]
- name: deploy
  image: local/busybox
  commands: [ "echo deploying" ]
`);
    const result = await runSvc(['exec'], { cwd, env: env() });
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('deploying');
    expect(result.stdout).toMatch(/- deploy\s+skipped/);
    expect(result.stdout).toContain('step check exited 78: the rest was skipped');
  });

  it('cancels on Ctrl-C and leaves nothing behind', async () => {
    const cwd = workingCopy(`
kind: pipeline
type: docker
name: default
steps:
- name: long
  image: local/busybox
  commands: [ "echo started", "sleep 60" ]
`);
    const child = startSvc(['exec'], { cwd, env: env() });
    const done = finished(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the step did not start')), 20_000);
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('started')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const cancelledAt = Date.now();
    child.kill('SIGINT');
    const result = await done;
    expect(Date.now() - cancelledAt).toBeLessThan(15_000);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cancelling');
    expect(result.stdout).toMatch(/✗ long\s+killed/);
    expect(await countMatching(docker.docker!, OWNER)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });

  it('substitutes ${…} build variables in the file as a server build does', async () => {
    const cwd = workingCopy(`kind: pipeline
type: docker
name: default
steps:
- name: vars
  image: local/busybox
  commands:
  - echo "parsed=\${DRONE_BUILD_EVENT} shell=$\${DRONE_BUILD_EVENT} pid-free=$$ upper=\${DRONE_REPO_NAME^^}"
`);
    const result = await runSvc(['exec'], { cwd, env: env() });
    expect(result.code, result.stderr).toBe(0);
    // ${X} is the build's value before the YAML is read; $${X} reaches the shell as ${X}; $$ is a $.
    const name = cwd.split('/').at(-1) ?? '';
    expect(result.stdout).toContain(`parsed=push shell=push pid-free=$ upper=${name.toUpperCase()}`);
  });

  it('reads paths conditions against the working copy’s difference with --paths-base', async () => {
    const cwd = workingCopy(`kind: pipeline
type: docker
name: default
trigger:
  paths: {exclude: ["*.md"]}
steps:
- name: go
  image: local/busybox
  when: {paths: [src/**]}
  commands: [echo go-ran]
- name: docs
  image: local/busybox
  when: {path: [docs/**]}
  commands: [echo docs-ran]
`);
    const git = gitAs({ name: 'Ada', email: 'ada@example.com' });
    git(cwd, 'init', '-q', '-b', 'main');
    git(cwd, 'add', '.');
    git(cwd, 'commit', '-q', '-m', 'base');
    mkdirSync(join(cwd, 'docs'));
    writeFileSync(join(cwd, 'docs', 'guide.txt'), 'new\n');
    const docs = await runSvc(['exec', '--paths-base', 'HEAD'], { cwd, env: env() });
    expect(docs.code, docs.stderr).toBe(0);
    expect(docs.stderr).toContain('paths: 1 file changed since HEAD');
    expect(docs.stdout).toContain('docs-ran');
    expect(docs.stdout).not.toContain('go-ran');
    // Without a base the files are not known: every paths condition holds, and svc says so.
    const unknown = await runSvc(['exec'], { cwd, env: env() });
    expect(unknown.stderr).toContain('the changed files are not known without --paths-base');
    expect(unknown.stdout).toContain('go-ran');
    // Only a README changed: the trigger's exclude leaves nothing to run.
    rmSync(join(cwd, 'docs'), { recursive: true });
    writeFileSync(join(cwd, 'README.md'), 'words\n');
    const readme = await runSvc(['exec', '--paths-base', 'HEAD'], { cwd, env: env() });
    expect(readme.code).toBe(0);
    expect(readme.stdout).toContain('(its trigger): nothing to do');
    const bad = await runSvc(['exec', '--paths-base', 'no-such-ref'], { cwd, env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--paths-base no-such-ref: git could not compare with it/);
  });

  it('reports lint errors with file, line and column, and exits 1', async () => {
    const cwd = workingCopy('kind: pipeline\ntype: docker\nsteps:\n- name: a\n  commands: [ls]\n');
    const result = await runSvc(['exec'], { cwd, env: env() });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\.drone\.yml:4:\d+: error: /m);
  });
});

describe('svc exec usage', () => {
  it('rejects unknown options and missing files with exit 2', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-exec-'));
    expect((await runSvc(['exec', '--frob'], { cwd })).code).toBe(2);
    const missing = await runSvc(['exec'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no pipeline file');
    const badEvent = await runSvc(['exec', '--event', 'merge'], { cwd });
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('--event must be one of push');
  });
});

describe('svc exec without a Docker engine', () => {
  it('names the engine it could not reach and the setting, and exits 1', async () => {
    const cwd = workingCopy(
      'kind: pipeline\ntype: docker\nsteps:\n- name: a\n  image: x\n  commands: [ls]\n',
    );
    const socket = join(cwd, 'no-docker.sock');
    const result = await runSvc(['exec'], { cwd, env: { DOCKER_HOST: `unix://${socket}` } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `svc exec: cannot use the Docker engine at unix://${socket} (DOCKER_HOST): connect ENOENT ${socket}\n`,
    );
  });
});
