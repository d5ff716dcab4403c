/*
 * Gogs end to end: `svc server` (SVC_SCME_SERVER) and `svc runner docker` as real processes, the Gogs
 * double, a real git server for the clone step. A user logs in with their Gogs password through the
 * form, enables a repository (a hook with a secret), a forged delivery changes nothing, a signed push
 * builds green, a tag (Gogs' create event) builds, and a pull request from a fork waits for approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { enable, loginWithPassword, tokenOf } from '../api/client.js';
import { startGogsDouble, type GogsDouble } from '../doubles/gogs/index.js';
import { browserSkip, launchBrowser } from '../web/browser.js';
import { ProviderE2E } from './provider-e2e.js';
import { forgedThenPushToGreen, heldForApproval, tagToGreen } from './provider-scenarios.js';
import { E2E_PIPELINE } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const REPO = 'alice/app';

describe.skipIf(docker.skip)('Gogs: login, enable, push, tag and fork pull request end to end', () => {
  let gogs: GogsDouble;
  let e2e: ProviderE2E;
  let token = '';
  let hookUrl = '';
  const url = () => e2e.url();

  beforeAll(async () => {
    gogs = await startGogsDouble();
    gogs.addUser({ login: 'alice', password: 'wonderland', email: 'alice@example.com' });
    gogs.addUser({ login: 'bob' });
    e2e = await ProviderE2E.start(
      {
        forge: gogs,
        repo: REPO,
        branch: 'master',
        author: 'alice',
        runnerName: `e2e-gogs-runner-${process.pid}`,
        addRepos: (cloneUrl) => {
          gogs.addRepo({ owner: 'alice', name: 'app', cloneUrl });
          gogs.addRepo({ owner: 'bob', name: 'app' });
        },
        settings: { SVC_SCME_SERVER: gogs.url },
      },
      docker.docker!,
    );
    e2e.push({ 'README.md': 'hello from Gogs\n', '.drone.yml': E2E_PIPELINE }, 'initial commit');
  });

  afterAll(() => e2e?.stop());

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
    e2e.token = token;
    expect(gogs.tokenNames('alice')).toContain('svc');
    await enable({ url: url() }, session, REPO);
    const [hook] = gogs.hooks(REPO);
    expect(hook).toMatchObject({ url: `${url()}/hook`, active: true });
    expect(hook?.events.sort()).toEqual(['create', 'delete', 'pull_request', 'push']);
    expect(hook?.secret.length).toBeGreaterThanOrEqual(32);
    hookUrl = hook?.url ?? '';
    // Gogs has no commit statuses: the server says so once, at start.
    expect(e2e.server?.log()).toContain('has no commit status API');
  });

  it('refuses a forged delivery, then builds a signed push to green', async () => {
    const build = await forgedThenPushToGreen(
      e2e,
      { sendPush: (secret) => gogs.push(REPO, 'master', hookUrl, secret === undefined ? {} : { secret }) },
      { message: 'a signed push' },
    );
    expect(build.ref).toBe('refs/heads/master');
  });

  it('builds a tag from Gogs’ create event', async () => {
    await tagToGreen(e2e, 'v1.0.0', {
      tagAt: (tag) => gogs.tag(REPO, tag),
      sendTag: (tag) => gogs.pushTag(REPO, tag, hookUrl),
    });
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
      { 'README.md': 'from a fork\n', '.drone.yml': E2E_PIPELINE },
      'fork work',
      'bob',
    );
    const opened = await gogs.pullRequest(REPO, 'feature', hookUrl, { fork: 'bob/app' });
    await heldForApproval(e2e, opened.status, { ref: `refs/pull/${opened.number}/head`, after: fork });
    expect(gogs.unknownCalls()).toEqual([]);
  });
});
