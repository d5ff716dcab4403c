/*
 * Gitea end to end: `svc server` (SVC_SCMB_*) and `svc runner docker` as real processes, the Gitea
 * double, a real git server for the clone step. A user logs in through Gitea's OAuth2 pages, enables
 * a repository (a hook with a secret), a forged delivery changes nothing, a signed push builds green
 * with its statuses at Gitea, a tag (Gitea's push and create) builds once, and a pull request from a
 * fork waits for approval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, cookieHeader, enable, tokenOf, type BrowserSession } from '../api/client.js';
import { startGiteaDouble, type GiteaDouble } from '../doubles/gitea/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { freePort, providerServerEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'acme/demo';
const RUNNER = `e2e-gitea-runner-${process.pid}`;

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
`;

interface ApiBuild {
  number: number;
  status: string;
  event: string;
  ref: string;
  after: string;
}

describe.skipIf(docker.skip)('Gitea: OAuth login, enable, push, tag and fork pull request end to end', () => {
  let gitea: GiteaDouble;
  let git: GitServer;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let port = 0;
  let token = '';
  let hookUrl = '';
  const url = () => `http://127.0.0.1:${port}`;

  function push(files: Record<string, string>, message: string): string {
    const sha = git.commit(REPO, 'main', files, message);
    gitea.commit(REPO, 'main', files, message, 'alice', sha);
    return sha;
  }

  async function build(number: number, done: (status: string) => boolean): Promise<ApiBuild> {
    return waitFor(`build ${number}`, async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
      const found = answer.status === 200 ? (answer.json as ApiBuild) : undefined;
      return found !== undefined && done(found.status) ? found : undefined;
    });
  }
  const ended = (status: string) => ['success', 'failure', 'error', 'killed'].includes(status);

  /** Gitea's OAuth2 round trip, as a browser makes it. */
  async function logIn(login: string): Promise<BrowserSession> {
    const start = await fetch(`${url()}/login`, { redirect: 'manual' });
    const atGitea = new URL(start.headers.get('location') ?? '');
    expect(`${atGitea.origin}${atGitea.pathname}`).toBe(`${gitea.url}/login/oauth/authorize`);
    atGitea.searchParams.set('login', login);
    const granted = await fetch(atGitea, { redirect: 'manual' });
    const back = await fetch(granted.headers.get('location') ?? '', {
      redirect: 'manual',
      headers: { cookie: cookieHeader(start.headers.getSetCookie()) },
    });
    expect(back.status, await back.clone().text()).toBe(302);
    const setCookies = back.headers.getSetCookie();
    const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
    const me = await call({ url: url() }, '/api/user', { session: { cookie, csrf: '', setCookies } });
    return { cookie, csrf: (me.json as { csrf: string }).csrf, setCookies };
  }

  beforeAll(async () => {
    gitea = await startGiteaDouble();
    gitea.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['acme'] });
    gitea.addUser({ login: 'bob' });
    git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
    gitea.addRepo({ owner: 'acme', name: 'demo', admins: ['alice'], cloneUrl: git.cloneUrl(REPO) });
    gitea.addRepo({ owner: 'bob', name: 'demo' });
    push({ 'README.md': 'hello from Gitea\n', '.drone.yml': PIPELINE }, 'initial commit');
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-gitea-'));
    server = await startServer(
      providerServerEnv(port, dataDir, {
        SVC_SCMB_SERVER: gitea.url,
        SVC_SCMB_CLIENT_ID: gitea.clientId,
        SVC_SCMB_CLIENT_SECRET: gitea.clientSecret,
      }),
    );
    runner = startRunner(port, RUNNER, [git.network]);
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await git?.close();
    await gitea?.close();
  });

  it('logs in through Gitea’s OAuth2 pages and enables a repository with a signed hook', async () => {
    const session = await logIn('alice');
    token = await tokenOf({ url: url() }, session);
    await enable({ url: url() }, session, REPO);
    const [hook] = gitea.hooks(REPO);
    expect(hook).toMatchObject({ url: `${url()}/hook`, active: true });
    expect(hook?.events.sort()).toEqual(['create', 'delete', 'pull_request', 'push']);
    expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
    hookUrl = hook?.url ?? '';
  });

  it('refuses a forged delivery, then builds a signed push to green and reports it to Gitea', async () => {
    expect(await gitea.push(REPO, 'main', hookUrl, { secret: 'not-the-secret' })).toBe(401);
    expect((await call({ url: url() }, `/api/repos/${REPO}/builds`, { token })).json).toEqual([]);
    const sha = push({ 'README.md': 'pushed to Gitea\n' }, 'a signed push');
    expect(await gitea.push(REPO, 'main', hookUrl)).toBe(200);
    expect(await build(1, ended)).toMatchObject({ status: 'success', event: 'push', after: sha });
    const statuses = await waitFor('the success status', () => {
      const posted = gitea.statuses(REPO, sha);
      return Promise.resolve(posted.at(-1)?.state === 'success' ? posted : undefined);
    });
    expect(statuses.map((s) => s.state)).toEqual(['pending', 'pending', 'success']);
    expect(statuses.every((s) => s.context === 'continuous-integration/svc')).toBe(true);
    expect(statuses.at(-1)?.target_url).toBe(`${url()}/${REPO}/1`);
  });

  it('builds a tag once from the push and create Gitea sends for it', async () => {
    git.tag(REPO, 'main', 'v1.0.0');
    const sha = gitea.tag(REPO, 'v1.0.0');
    expect(await gitea.pushTag(REPO, 'v1.0.0', hookUrl)).toEqual([200, 200]);
    expect(await build(2, ended)).toMatchObject({
      status: 'success',
      event: 'tag',
      ref: 'refs/tags/v1.0.0',
      after: sha,
    });
    const builds = (await call({ url: url() }, `/api/repos/${REPO}/builds`, { token })).json as ApiBuild[];
    expect(builds.map((b) => b.number)).toEqual([2, 1]);
  });

  it('holds a pull request from a fork for approval', async () => {
    const fork = gitea.commit(
      'bob/demo',
      'feature',
      { 'README.md': 'from a fork\n', '.drone.yml': PIPELINE },
      'fork work',
      'bob',
    );
    const opened = await gitea.pullRequest(REPO, 'feature', hookUrl, { fork: 'bob/demo' });
    expect(opened.status).toBe(200);
    expect(await build(3, () => true)).toMatchObject({
      status: 'blocked',
      event: 'pull_request',
      ref: `refs/pull/${opened.number}/head`,
      after: fork,
    });
    expect(gitea.unknownCalls()).toEqual([]);
  });
});
