/*
 * GitLab end to end: `svc server` (SVC_SCMD_*) and `svc runner docker` as real processes, the GitLab
 * double, a real git server for the clone step. A user logs in through GitLab's OAuth2 pages, enables
 * a project (a hook with a secret token), a delivery with another token changes nothing, a push builds
 * green with its statuses at GitLab, a tag push builds, and a merge request from a fork waits for
 * approval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, cookieHeader, enable, tokenOf, type BrowserSession } from '../api/client.js';
import { startGitLabDouble, type GitLabDouble } from '../doubles/gitlab/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { freePort, providerServerEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'acme/demo';
const RUNNER = `e2e-gitlab-runner-${process.pid}`;

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

describe.skipIf(docker.skip)(
  'GitLab: OAuth login, enable, push, tag and fork merge request end to end',
  () => {
    let gitlab: GitLabDouble;
    let git: GitServer;
    let server: SvcProcess | undefined;
    let runner: SvcProcess | undefined;
    let port = 0;
    let token = '';
    let hookUrl = '';
    const url = () => `http://127.0.0.1:${port}`;

    function push(files: Record<string, string>, message: string): string {
      const sha = git.commit(REPO, 'main', files, message);
      gitlab.commit(REPO, 'main', files, message, 'alice', sha);
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

    /** GitLab's OAuth2 round trip, as a browser makes it. */
    async function logIn(login: string): Promise<BrowserSession> {
      const start = await fetch(`${url()}/login`, { redirect: 'manual' });
      const atGitLab = new URL(start.headers.get('location') ?? '');
      expect(`${atGitLab.origin}${atGitLab.pathname}`).toBe(`${gitlab.url}/oauth/authorize`);
      expect(atGitLab.searchParams.get('scope')).toBe('api');
      atGitLab.searchParams.set('login', login);
      const granted = await fetch(atGitLab, { redirect: 'manual' });
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
      gitlab = await startGitLabDouble();
      gitlab.addUser({ login: 'alice', email: 'alice@example.com', orgAdmin: ['acme'] });
      gitlab.addUser({ login: 'bob' });
      git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
      gitlab.addRepo({ owner: 'acme', name: 'demo', admins: ['alice'], cloneUrl: git.cloneUrl(REPO) });
      gitlab.addRepo({ owner: 'bob', name: 'demo' });
      push({ 'README.md': 'hello from GitLab\n', '.drone.yml': PIPELINE }, 'initial commit');
      port = await freePort();
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-gitlab-'));
      server = await startServer(
        providerServerEnv(port, dataDir, {
          SVC_SCMD_SERVER: gitlab.url,
          SVC_SCMD_CLIENT_ID: gitlab.clientId,
          SVC_SCMD_CLIENT_SECRET: gitlab.clientSecret,
        }),
      );
      runner = startRunner(port, RUNNER, [git.network]);
    });

    afterAll(async () => {
      await runner?.stop();
      await server?.stop();
      await git?.close();
      await gitlab?.close();
    });

    it('logs in through GitLab’s OAuth2 pages and enables a project with a hook and its secret token', async () => {
      const session = await logIn('alice');
      token = await tokenOf({ url: url() }, session);
      await enable({ url: url() }, session, REPO);
      const [hook] = gitlab.hooks(REPO);
      expect(hook).toMatchObject({ url: `${url()}/hook` });
      expect(hook?.events.sort()).toEqual(['merge_requests', 'push', 'tag_push']);
      expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
      hookUrl = hook?.url ?? '';
    });

    it('refuses a delivery with another token, then builds a push to green and reports it to GitLab', async () => {
      expect(await gitlab.push(REPO, 'main', hookUrl, { secret: 'not-the-secret' })).toBe(401);
      expect((await call({ url: url() }, `/api/repos/${REPO}/builds`, { token })).json).toEqual([]);
      const sha = push({ 'README.md': 'pushed to GitLab\n' }, 'a signed push');
      expect(await gitlab.push(REPO, 'main', hookUrl)).toBe(200);
      expect(await build(1, ended)).toMatchObject({ status: 'success', event: 'push', after: sha });
      const statuses = await waitFor('the success status', () => {
        const posted = gitlab.statuses(REPO, sha);
        return Promise.resolve(posted.at(-1)?.state === 'success' ? posted : undefined);
      });
      expect(statuses.map((s) => s.state)).toEqual(['pending', 'running', 'success']);
      expect(statuses.every((s) => s.context === 'continuous-integration/svc')).toBe(true);
      expect(statuses.at(-1)?.target_url).toBe(`${url()}/${REPO}/1`);
    });

    it('builds a tag push', async () => {
      git.tag(REPO, 'main', 'v1.0.0');
      const sha = gitlab.tag(REPO, 'v1.0.0');
      expect(await gitlab.pushTag(REPO, 'v1.0.0', hookUrl)).toBe(200);
      expect(await build(2, ended)).toMatchObject({
        status: 'success',
        event: 'tag',
        ref: 'refs/tags/v1.0.0',
        after: sha,
      });
    });

    it('holds a merge request from a fork for approval', async () => {
      const fork = gitlab.commit(
        'bob/demo',
        'feature',
        { 'README.md': 'from a fork\n', '.drone.yml': PIPELINE },
        'fork work',
        'bob',
      );
      const opened = await gitlab.mergeRequest(REPO, 'feature', hookUrl, { fork: 'bob/demo' });
      expect(opened.status).toBe(200);
      expect(await build(3, () => true)).toMatchObject({
        status: 'blocked',
        event: 'pull_request',
        ref: `refs/merge-requests/${opened.iid}/head`,
        after: fork,
      });
      expect(gitlab.unknownCalls()).toEqual([]);
    });
  },
);
