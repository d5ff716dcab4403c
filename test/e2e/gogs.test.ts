/*
 * Gogs end to end: `svc server` (SVC_SCME_SERVER) and `svc runner docker` as real processes, the Gogs
 * double, a real git server for the clone step. A user logs in with their Gogs password through the
 * form, enables a repository (a hook with a secret), a forged delivery changes nothing, a signed push
 * builds green, a tag (Gogs' create event) builds, and a pull request from a fork waits for approval.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginWithPassword, tokenOf } from '../api/client.js';
import { startGogsDouble, type GogsDouble } from '../doubles/gogs/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { browserSkip, launchBrowser } from '../web/browser.js';
import { freePort, providerServerEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'alice/app';
const RUNNER = `e2e-gogs-runner-${process.pid}`;

const PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
  - echo "event $DRONE_BUILD_EVENT ref $DRONE_COMMIT_REF"
`;

interface ApiBuild {
  number: number;
  status: string;
  event: string;
  ref: string;
  after: string;
  fork?: string;
}

describe.skipIf(docker.skip)('Gogs: login, enable, push, tag and fork pull request end to end', () => {
  let gogs: GogsDouble;
  let git: GitServer;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let port = 0;
  let token = '';
  let hookUrl = '';
  const url = () => `http://127.0.0.1:${port}`;

  function push(files: Record<string, string>, message: string): string {
    const sha = git.commit(REPO, 'master', files, message);
    gogs.commit(REPO, 'master', files, message, 'alice', sha);
    return sha;
  }

  async function finished(number: number): Promise<ApiBuild> {
    return waitFor(`build ${number} to finish`, async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/${number}`, { token });
      const build = answer.json as ApiBuild;
      return ['success', 'failure', 'error', 'killed'].includes(build.status) ? build : undefined;
    });
  }

  beforeAll(async () => {
    gogs = await startGogsDouble();
    gogs.addUser({ login: 'alice', password: 'wonderland', email: 'alice@example.com' });
    gogs.addUser({ login: 'bob' });
    git = await startGitServer(docker.docker!, { 'io.svc.owner': RUNNER });
    gogs.addRepo({ owner: 'alice', name: 'app', cloneUrl: git.cloneUrl(REPO) });
    gogs.addRepo({ owner: 'bob', name: 'app' });
    push({ 'README.md': 'hello from Gogs\n', '.drone.yml': PIPELINE }, 'initial commit');
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-gogs-'));
    server = await startServer(providerServerEnv(port, dataDir, { SVC_SCME_SERVER: gogs.url }));
    runner = startRunner(port, RUNNER, [git.network]);
  });

  afterAll(async () => {
    await runner?.stop();
    await server?.stop();
    await git?.close();
    await gogs?.close();
  });

  it('logs in with the Gogs password through the form and enables a repository with a signed hook', async () => {
    const form = await fetch(`${url()}/login`);
    expect(form.status).toBe(200);
    const page = await form.text();
    expect(page).toContain(`With your Gogs account at ${gogs.url}.`);
    expect(page).toContain('<input name="password" type="password"');
    await expect(loginWithPassword({ url: url() }, 'alice', 'guess')).rejects.toThrow(
      /answered 401.*Wrong username or password/s,
    );

    const session = await loginWithPassword({ url: url() }, 'alice', 'wonderland');
    token = await tokenOf({ url: url() }, session);
    expect(gogs.tokenNames('alice')).toContain('svc');
    await enable({ url: url() }, session, REPO);
    const [hook] = gogs.hooks(REPO);
    expect(hook).toMatchObject({ url: `${url()}/hook`, active: true });
    expect(hook?.events.sort()).toEqual(['create', 'delete', 'pull_request', 'push']);
    expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
    hookUrl = hook?.url ?? '';
    // Gogs has no commit statuses: the server says so once, at start.
    expect(server?.log()).toContain('has no commit status API');
  });

  it('refuses a forged delivery, then builds a signed push to green', async () => {
    expect(await gogs.push(REPO, 'master', hookUrl, { secret: 'not-the-secret' })).toBe(401);
    const listed = await call({ url: url() }, `/api/repos/${REPO}/builds`, { token });
    expect(listed.json).toEqual([]);
    const sha = push({ 'README.md': 'pushed to Gogs\n' }, 'a signed push');
    expect(await gogs.push(REPO, 'master', hookUrl)).toBe(200);
    const done = await finished(1);
    expect(done).toMatchObject({ status: 'success', event: 'push', ref: 'refs/heads/master', after: sha });
  });

  it('builds a tag from Gogs’ create event', async () => {
    git.tag(REPO, 'master', 'v1.0.0');
    const sha = gogs.tag(REPO, 'v1.0.0');
    expect(await gogs.pushTag(REPO, 'v1.0.0', hookUrl)).toBe(200);
    const done = await finished(2);
    expect(done).toMatchObject({ status: 'success', event: 'tag', ref: 'refs/tags/v1.0.0', after: sha });
  });

  it.skipIf(browserSkip())('logs a person in through the form in Chromium, into the web UI', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${url()}/`);
      await page.getByRole('link', { name: 'Log in' }).click();
      await page.getByLabel('Username').fill('alice');
      await page.getByLabel('Password').fill('nope');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('alert').getByText('Wrong username or password.').waitFor();
      // The username stays; the password is asked for again.
      expect(await page.getByLabel('Username').inputValue()).toBe('alice');
      await page.getByLabel('Password').fill('wonderland');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Repositories' }).waitFor();
      await page.getByRole('link', { name: REPO }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('holds a pull request from a fork for approval, at the fork branch’s head', async () => {
    const fork = gogs.commit(
      'bob/app',
      'feature',
      { 'README.md': 'from a fork\n', '.drone.yml': PIPELINE },
      'fork work',
      'bob',
    );
    const opened = await gogs.pullRequest(REPO, 'feature', hookUrl, { fork: 'bob/app' });
    expect(opened.status).toBe(200);
    const build = await waitFor('the pull request build', async () => {
      const answer = await call({ url: url() }, `/api/repos/${REPO}/builds/3`, { token });
      return answer.status === 200 ? (answer.json as ApiBuild) : undefined;
    });
    expect(build).toMatchObject({
      status: 'blocked',
      event: 'pull_request',
      ref: `refs/pull/${opened.number}/head`,
      after: fork,
    });
    expect(gogs.unknownCalls()).toEqual([]);
  });
});
