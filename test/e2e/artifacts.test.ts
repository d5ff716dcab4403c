/**
 * Issue 34, artifacts end to end: a real `svc server` (the built-in git provider, its in-process
 * Docker runner, SQLite, files on its disk) builds a push of two pipelines: `build` uploads its
 * binary; `test` depends on it, takes it with `artifacts: from:`, and its failing step still uploads
 * its reports (`when: always`); the API lists them and opens a file, the CLI downloads one.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call } from '../api/client.js';
import { gitAs } from '../support/git-client.js';
import { localGitAdmin } from '../support/local-git-admin.js';
import { runSvc } from '../support/svc-process.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);

const PIPELINES = `kind: pipeline
type: docker
name: build
steps:
- name: compile
  image: local/busybox
  pull: if-not-exists
  commands:
  - mkdir -p dist && echo "hello from build" > dist/app.txt
  artifacts:
    name: bin
    paths: [dist/**]
---
kind: pipeline
type: docker
name: test
depends_on: [build]
artifacts:
  from: [build]
steps:
- name: check
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat dist/app.txt
  - mkdir -p reports && echo "<testsuite tests='1' failures='1'/>" > reports/unit.xml
  - exit 1
  artifacts:
    name: reports
    paths: [reports/*.xml]
    when: always
    reports:
      junit: [reports/*.xml]
`;

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe.skipIf(docker.skip)('artifacts: a real server and its runner', () => {
  let server: SvcProcess | undefined;
  let port = 0;
  let token = '';
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const api = (path: string) => call({ url: url() }, path, { token });

  beforeAll(async () => {
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-artifacts-data-'));
    server = await startServer({
      ...providerServerEnv(port, dataDir, {}),
      SVC_SERVER_PORT: `:${port}`,
      SVC_SCML_ENABLED: 'true',
      SVC_RUNNER_LOCAL: 'true',
      SVC_STORAGE_DIR: join(dataDir, 'files'),
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    ({ token } = await localGitAdmin(url(), () => server?.log() ?? '', 'ada', 'ada-password-1'));
    const post = (path: string, body?: unknown) =>
      call({ url: url() }, path, { method: 'POST', token, body });
    expect((await post('/api/local/repos', { name: 'hello' })).status).toBe(201);
    expect((await post('/api/repos/ada/hello')).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('uploads a stage’s files, fetches them into a dependent stage, and keeps a failed step’s reports', async () => {
    const work = mkdtempSync(join(tmpdir(), 'svc-artifacts-work-'));
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, '.drone.yml'), PIPELINES);
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'two pipelines');
    git(work, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'main');
    const build = await waitFor(
      'the build to end',
      async () => {
        const answer = (await api('/api/repos/ada/hello/builds/1')).json as { status?: string };
        return answer.status === 'success' || answer.status === 'failure' || answer.status === 'error'
          ? answer
          : undefined;
      },
      180_000,
    );
    const log = async (stage: number, step: number) =>
      ((await api(`/api/repos/ada/hello/builds/1/logs/${stage}/${step}`)).json as { out: string }[])
        .map((line) => line.out.trimEnd())
        .filter((line) => !line.startsWith('+ '));
    expect(build.status).toBe('failure');
    expect((await log(1, 2)).at(-1)).toMatch(/^artifacts: uploaded "bin", 1 file, [\d.]+ MB in [\d.]+ s$/);
    const check = await log(2, 2);
    expect(check[0]).toBe('artifacts: fetched those of stage "build" into the workspace');
    expect(check).toContain('hello from build');
    expect(check).toContainEqual(expect.stringMatching(/^artifacts: uploaded "reports", 1 file, /));
    // The report names no test case: it is read, and says so.
    expect(check.at(-1)).toBe('tests: 0 passed, 0 failed — from 1 report');
  }, 240_000);

  it('lists them, opens a file, and downloads them through the API and the CLI', async () => {
    const listed = (await api('/api/repos/ada/hello/builds/1/artifacts')).json as {
      id: number;
      name: string;
      stage: { name: string };
      files: number;
      junit: string[];
    }[];
    expect(listed.map((a) => [a.stage.name, a.name, a.files, a.junit])).toEqual([
      ['build', 'bin', 1, []],
      ['test', 'reports', 1, ['reports/unit.xml']],
    ]);
    const bin = listed[0]?.id ?? 0;
    const file = await fetch(url(`/api/repos/ada/hello/builds/1/artifacts/${bin}/files/dist/app.txt`), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect([file.status, file.headers.get('content-type'), await file.text()]).toEqual([
      200,
      'text/plain; charset=utf-8',
      'hello from build\n',
    ]);
    const out = mkdtempSync(join(tmpdir(), 'svc-artifacts-get-'));
    const got = await runSvc(
      ['build', 'artifacts', 'get', 'ada/hello', '1', 'bin', '-o', join(out, 'bin.zip')],
      {
        cwd: out,
        env: { SVC_SERVER: url(), SVC_TOKEN: token },
      },
    );
    expect(got.code, got.stderr).toBe(0);
    expect(execFileSync('unzip', ['-p', join(out, 'bin.zip'), 'dist/app.txt'], { encoding: 'utf8' })).toBe(
      'hello from build\n',
    );
  }, 60_000);
});
