/*
 * Jobs' OpenID Connect tokens end to end (issue 30): `svc server` with its own Docker runner
 * (SVC_RUNNER_LOCAL) builds a push whose step asks for a token; the step's container prints it
 * (whole, which the log masks, and cut at its dots, which it does not), and the test verifies it
 * with jose against the key set the server publishes.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
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
- name: cloud
  image: local/busybox
  pull: if-not-exists
  id_tokens:
    SVC_ID_TOKEN:
      aud: sts.example.com
  commands:
  - 'echo "whole: $SVC_ID_TOKEN"'
  - 'echo "parts: $(echo "$SVC_ID_TOKEN" | tr . " ")"'
- name: other
  image: local/busybox
  pull: if-not-exists
  commands:
  - 'echo "other step: [$SVC_ID_TOKEN]"'
`;

describe.skipIf(docker.skip)('OIDC tokens in a step run by a real Docker runner', () => {
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
      ...serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-oidc-')), github),
      SVC_RUNNER_LOCAL: 'true',
      SVC_OIDC_TOKEN_LIFETIME: '15m',
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
  });

  it('gives the step a token, masked in the log, that verifies against the server’s published keys', async () => {
    expect(await github.push(REPO, 'main', github.hooks(REPO)[0]?.url ?? '')).toBe(200);
    const build = await waitFor('the build to end', async () => {
      const answer = (await call({ url: url() }, `/api/repos/${REPO}/builds/1`, { token })).json as {
        status: string;
        after: string;
      };
      return ['success', 'failure', 'error', 'killed'].includes(answer.status) ? answer : undefined;
    });
    expect(build.status).toBe('success');
    const log = (await call({ url: url() }, `/api/repos/${REPO}/builds/1/logs/1/1`, { token })).text;
    expect(log).toContain('whole: ********');
    const parts = /parts: ([\w-]+) ([\w-]+) ([\w-]+)/.exec(log);
    expect(parts, log).not.toBeNull();
    const jwt = parts?.slice(1, 4).join('.') ?? '';

    const keys = createRemoteJWKSet(new URL(`${url()}/.well-known/jwks`));
    const { payload } = await jwtVerify(jwt, keys, { issuer: url(), audience: 'sts.example.com' });
    expect(payload).toMatchObject({
      sub: 'repo:octocat/app:ref:refs/heads/main',
      repository: 'octocat/app',
      event: 'push',
      sha: build.after,
      build_number: 1,
      pipeline: 'default',
      step: 'cloud',
      fork: false,
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(15 * 60);

    const other = (await call({ url: url() }, `/api/repos/${REPO}/builds/1/logs/1/2`, { token })).text;
    expect(other).toContain('other step: []');
  });
});
