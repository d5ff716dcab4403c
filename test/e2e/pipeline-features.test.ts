/**
 * Issue 35 end to end: a real `svc server` (the built-in git provider, its in-process Docker runner,
 * SQLite) builds pushes that use svc's pipeline additions: a step that exits 137 once and is run
 * again by its `retry:`, one that outlives its own `timeout:`, and a 3×2 `matrix:` whose six stages
 * each see their values, followed by a pipeline that waits for all of them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call } from '../api/client.js';
import { gitAs } from '../support/git-client.js';
import { localGitAdmin } from '../support/local-git-admin.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: flaky
  image: local/busybox
  pull: if-not-exists
  retry: {max: 2, when: [137]}
  commands:
  - if [ -f tried ]; then echo "second attempt"; exit 0; fi
  - touch tried
  - echo "first attempt"
  - exit 137
- name: slow
  image: local/busybox
  pull: if-not-exists
  timeout: 3s
  commands:
  - echo started
  - sleep 60
- name: after
  image: local/busybox
  pull: if-not-exists
  when: {status: [failure]}
  commands: [echo "the build goes on"]
`;

const MATRIX = `kind: pipeline
type: docker
name: test
clone: {disable: true}
matrix:
  GO: ["1.21", "1.22", "1.23"]
  DB: [mysql, postgres]
steps:
- name: show
  image: local/busybox
  pull: if-not-exists
  commands: ['echo "go=\${GO} db=\${DB}"']
---
kind: pipeline
type: docker
name: after
clone: {disable: true}
depends_on: [test]
steps:
- name: done
  image: local/busybox
  pull: if-not-exists
  commands: [echo all done]
`;

interface StepJson {
  name: string;
  status: string;
  exit_code: number;
  error: string;
  attempts: number;
}

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe.skipIf(docker.skip)('retry:, timeout: and matrix: on a real server and its runner', () => {
  let server: SvcProcess | undefined;
  let port = 0;
  let token = '';
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const work = mkdtempSync(join(tmpdir(), 'svc-retry-work-'));

  beforeAll(async () => {
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-retry-data-'));
    server = await startServer({
      ...providerServerEnv(port, dataDir, {}),
      SVC_SERVER_PORT: `:${port}`,
      SVC_SCML_ENABLED: 'true',
      SVC_RUNNER_LOCAL: 'true',
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    ({ token } = await localGitAdmin(url(), () => server?.log() ?? '', 'ada', 'ada-password-1'));
    const post = (path: string, body?: unknown) =>
      call({ url: url() }, path, { method: 'POST', token, body });
    for (const name of ['hello', 'matrix']) {
      expect((await post('/api/local/repos', { name })).status).toBe(201);
      expect((await post(`/api/repos/ada/${name}`)).status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('runs a step that exited 137 again, keeps both attempts’ logs, and fails a step at its timeout', async () => {
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, '.drone.yml'), PIPELINE);
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'flaky');
    git(work, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'main');
    const build = (await waitFor(
      'build #1 to end',
      async () => {
        const answer = await call({ url: url() }, '/api/repos/ada/hello/builds/1', { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      120_000,
    )) as { status: string; stages: { steps: StepJson[] }[] };
    const steps = new Map(build.stages[0]?.steps.map((step) => [step.name, step]));
    expect(build.status, JSON.stringify(build)).toBe('failure');
    expect(steps.get('flaky')).toMatchObject({ status: 'success', exit_code: 0, attempts: 2 });
    expect(steps.get('slow')).toMatchObject({
      status: 'failure',
      exit_code: 137,
      attempts: 1,
      error: 'step timed out after 3s (its timeout)',
    });
    expect(steps.get('after')).toMatchObject({ status: 'success', attempts: 1 });

    const log = async (number: number) => {
      const answer = await call({ url: url() }, `/api/repos/ada/hello/builds/1/logs/1/${number}`, { token });
      // The commands' own echo (`+ …`) left out.
      return (answer.json as { out: string }[])
        .map((line) => line.out.trimEnd())
        .filter((line) => !line.startsWith('+ '));
    };
    expect(await log(2)).toEqual([
      'first attempt',
      'retry: attempt 1 of 3 failed (exit code 137); the step runs again',
      'second attempt',
    ]);
    expect(await log(3)).toEqual(['started']);
  }, 180_000);

  it('runs a 3×2 matrix as six stages with their values, then the pipeline that depends on it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-matrix-work-'));
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, '.drone.yml'), MATRIX);
    git(dir, 'add', '.');
    git(dir, 'commit', '-q', '-m', 'matrix');
    git(dir, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/matrix.git`, 'main');
    const build = (await waitFor(
      'the matrix build to end',
      async () => {
        const answer = await call({ url: url() }, '/api/repos/ada/matrix/builds/1', { token });
        const status = (answer.json as { status?: string } | undefined)?.status;
        return status === 'success' || status === 'failure' || status === 'error' ? answer.json : undefined;
      },
      180_000,
    )) as { status: string; stages: { number: number; name: string; status: string; started: number }[] };
    expect(build.status, JSON.stringify(build.stages)).toBe('success');
    const stages = build.stages;
    expect(stages.map((stage) => stage.name)).toEqual([
      'test (GO=1.21, DB=mysql)',
      'test (GO=1.21, DB=postgres)',
      'test (GO=1.22, DB=mysql)',
      'test (GO=1.22, DB=postgres)',
      'test (GO=1.23, DB=mysql)',
      'test (GO=1.23, DB=postgres)',
      'after',
    ]);
    for (const stage of stages.slice(0, 6)) {
      const answer = await call({ url: url() }, `/api/repos/ada/matrix/builds/1/logs/${stage.number}/1`, {
        token,
      });
      const lines = (answer.json as { out: string }[]).map((line) => line.out.trimEnd());
      const [, go, db] = /\(GO=(.*), DB=(.*)\)/.exec(stage.name) ?? [];
      expect(lines).toContain(`go=${go} db=${db}`);
    }
    const after = stages[6];
    expect(after?.started).toBeGreaterThanOrEqual(
      Math.max(...stages.slice(0, 6).map((stage) => stage.started)),
    );
  }, 240_000);
});
