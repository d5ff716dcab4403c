/*
 * SVC_RUNNER_LOCAL: `svc server` alone builds — its own Docker runner takes the stages over loopback.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countMatching, dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox']);
const REPO = 'octocat/app';
const PIPELINE = `kind: pipeline
type: docker
name: default
clone:
  disable: true
steps:
- name: hello
  image: local/busybox
  pull: if-not-exists
  commands: [echo built by the local runner]
`;

describe.skipIf(docker.skip)('svc server with SVC_RUNNER_LOCAL: one process builds', () => {
  let github: GitHubDouble;
  let server: SvcProcess | undefined;
  let port = 0;
  let token = '';
  const url = () => `http://127.0.0.1:${port}`;

  beforeAll(async () => {
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    github.commit(REPO, 'main', { '.drone.yml': PIPELINE }, 'first');
    port = await freePort();
    server = await startServer({
      ...serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-local-runner-')), github),
      SVC_RUNNER_LOCAL: 'true',
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
  });

  afterAll(async () => {
    const stopped = await server?.stop();
    await github?.close();
    expect(stopped?.code).toBe(0);
    if (docker.docker) {
      expect(
        (await countMatching(docker.docker, { label: ['io.svc.owner=local', 'io.svc.run'] })).containers,
      ).toBe(0);
    }
  });

  it('runs a pushed build with no other runner', async () => {
    expect(await github.push(REPO, 'main', github.hooks(REPO)[0]?.url ?? '')).toBe(200);
    const done = await waitFor('the build to end', async () => {
      const build = (await call({ url: url() }, `/api/repos/${REPO}/builds/1`, { token })).json as {
        status: string;
      };
      return ['success', 'failure', 'error', 'killed'].includes(build.status) ? build : undefined;
    });
    expect(done.status).toBe('success');
    const log = await call({ url: url() }, `/api/repos/${REPO}/builds/1/logs/1/1`, { token });
    expect(log.text).toContain('built by the local runner');
    expect(server?.log()).toContain('SVC_RUNNER_LOCAL: runner');
  });
});
