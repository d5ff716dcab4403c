/*
 * Runners with their own credentials, end to end (issue 30): `svc server` that refuses the shared
 * secret (SVC_RPC_SECRET_DISABLED), an administrator who mints a runner token with
 * `svc runner token create`, and `svc runner docker` that builds with it on the real Docker engine;
 * then the token is revoked with `svc runner token revoke`, and that runner gets no more work.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { runSvc } from '../support/svc-process.js';
import {
  E2E_PIPELINE,
  freePort,
  serverEnv,
  startRunner,
  startServer,
  waitFor,
  type SvcProcess,
} from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'octocat/app';
const RUNNER = `token-runner-${process.pid}`;

describe.skipIf(docker.skip)('a runner with its own token builds, and stops when it is revoked', () => {
  let github: GitHubDouble;
  let git: GitServer;
  let port = 0;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let token = '';
  const url = () => `http://127.0.0.1:${port}`;
  const cli = (...args: string[]) =>
    runSvc(['runner', 'token', ...args], {
      cwd: mkdtempSync(join(tmpdir(), 'svc-e2e-cli-')),
      env: { SVC_SERVER: url(), SVC_TOKEN: token },
    });
  const push = (files: Record<string, string>, message: string) => {
    const sha = git.commit(REPO, 'main', files, message);
    github.commit(REPO, 'main', files, message, 'octocat', sha);
    return sha;
  };
  const build = async (number: number) => {
    const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
    return answer.json as { status: string; stages?: { machine?: string }[] };
  };

  beforeAll(async () => {
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], cloneUrl: git.cloneUrl(REPO) });
    push({ 'README.md': 'built by a runner with its own token\n' }, 'initial commit');
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-data-'));
    server = await startServer({
      ...serverEnv(port, dataDir, github),
      SVC_RPC_SECRET_DISABLED: 'true',
      SVC_USER_CREATE: 'username:octocat,admin:true',
    });
    const session = await loginAs({ url: url() }, 'octocat');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await git?.close();
    await github?.close();
  });

  it('builds with the token that `svc runner token create` made, under the token’s name', async () => {
    // A runner with the shared secret is refused: it never takes the build.
    const shared = startRunner(port, `${RUNNER}-shared`, [git.network]);
    const created = await cli('create', RUNNER, '--labels', 'pool=e2e');
    expect(created.code, created.stderr).toBe(0);
    const minted = /svcr_[A-Za-z0-9_-]+/.exec(created.stdout)?.[0] ?? '';
    expect(minted).not.toBe('');

    // Its token's labels are the runner's (Drone's rule: a stage's node labels match the runner's).
    push({ '.drone.yml': `${E2E_PIPELINE}node:\n  pool: e2e\n` }, 'add the pipeline');
    expect(await github.push(REPO, 'main', `${url()}/hook`)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect((await build(1)).status).toBe('pending');
    await shared.stop();

    runner = startRunner(port, RUNNER, [git.network], { SVC_RPC_SECRET: minted });
    const done = await waitFor('build 1 to finish', async () => {
      const current = await build(1);
      return ['success', 'failure', 'error'].includes(current.status) ? current : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}\n--- runner log:\n${runner?.log().slice(-4000) ?? ''}`);
    });
    expect(done.status, runner.log()).toBe('success');
    expect(done.stages?.[0]?.machine).toBe(RUNNER);

    const listed = await cli('ls');
    expect(listed.stdout).toContain(RUNNER);
    expect(listed.stdout).toContain('pool=e2e');
    expect(listed.stdout).not.toContain(minted);
  }, 180_000);

  it('takes no more work once `svc runner token revoke` revoked its token', async () => {
    const revoked = await cli('revoke', RUNNER);
    expect(revoked.code, revoked.stderr).toBe(0);
    push({ 'README.md': 'after the revocation\n' }, 'a second push');
    expect(await github.push(REPO, 'main', `${url()}/hook`)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect((await build(2)).status).toBe('pending');
    const answer = await call({ url: url() }, '/api/runners/tokens', { token });
    expect(
      (answer.json as { name: string; revoked: number }[]).find((t) => t.name === RUNNER)?.revoked,
    ).toBeGreaterThan(0);
  });
});
