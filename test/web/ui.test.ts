/*
 * The web UI in a real browser: `svc server` and `svc runner docker` as real processes, the GitHub
 * double, Debian's Chromium. A person's path: their repositories, enabling one, a build's stage
 * graph, a live log line, restarting the failed stage — with no error in the browser's console.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { WEB_DIST } from '../../src/server/web/web-app.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from '../e2e/system.js';
import { browserSkip, launchBrowser } from './browser.js';

const docker = await dockerForTests(['local/busybox']);
const skip = docker.skip || browserSkip();
const REPO = 'octocat/app';
const RUNNER = `ui-runner-${process.pid}`;

// `build` prints a line, waits (so the page sees it live), then more; `check` fails until FIX=yes.
const PIPELINE = `kind: pipeline
type: docker
name: build
clone:
  disable: true
steps:
- name: greet
  image: local/busybox
  pull: if-not-exists
  commands:
  - echo "hello from svc"
  - sleep 3
  - printf '\\033[32mgreen\\033[0m and done\\n'
---
kind: pipeline
type: docker
name: check
clone:
  disable: true
depends_on: [build]
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  commands:
  - test "$\${FIX}" = yes
`;

describe.skipIf(skip)('the web UI in Chromium: server, Docker runner, GitHub double', () => {
  let github: GitHubDouble;
  let server: SvcProcess | undefined;
  let runner: SvcProcess | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let port = 0;
  const problems: string[] = [];
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;

  beforeAll(async () => {
    if (!existsSync(join(WEB_DIST, 'index.html')))
      throw new Error('the web UI is not built: run npm run build');
    github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    github.commit(REPO, 'main', { 'README.md': 'hello\n' }, 'initial commit');
    port = await freePort();
    server = await startServer({
      ...serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-ui-data-')), github),
      // octocat administers the server: the administration page is tested too.
      SVC_USER_CREATE: 'username:octocat,admin:true',
    });
    runner = startRunner(port, RUNNER, []);
    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
  });

  afterAll(async () => {
    await browser?.close();
    await runner?.stop();
    await server?.stop();
    await github?.close();
  });

  it('logs in through the provider, lists the repositories and enables one', async () => {
    // A visitor gets the start page; its link goes through the provider's authorize page and back.
    await page.goto(url('/'));
    await page.getByRole('link', { name: 'Log in' }).click();
    await page.waitForURL(url('/'));
    await page.getByRole('heading', { name: 'Repositories' }).waitFor();
    await page.getByLabel('Enabled only').uncheck();
    const card = page.getByRole('listitem').filter({ hasText: REPO });
    await card.getByRole('button', { name: 'Enable' }).click();
    await card.getByText('no builds yet').waitFor();
    expect(github.hooks(REPO)).toHaveLength(1);
  });

  it('shows a pushed build’s stage graph and a live log line, then restarts the failed stage', async () => {
    github.commit(REPO, 'main', { '.drone.yml': PIPELINE }, 'add the pipeline');
    expect(await github.push(REPO, 'main', github.hooks(REPO)[0]?.url ?? '')).toBe(200);
    await page.getByRole('link', { name: REPO }).click();
    await page.getByRole('link', { name: '#1' }).click();
    await page.waitForURL(url(`/${REPO}/1`));
    const graph = page.getByRole('img', { name: 'stage graph' });
    await graph.getByRole('button', { name: /stage build: / }).waitFor();
    await graph.getByRole('button', { name: /stage check: / }).waitFor();
    // The step shows up once the runner started the stage; choosing it shows its log beside the
    // stages, followed live, without leaving the build page.
    await page.getByRole('link', { name: 'greet' }).click({ timeout: 60_000 });
    await page.waitForURL(url(`/${REPO}/1?step=1.1`));
    const panel = page.getByRole('region', { name: 'log of greet' });
    await panel.getByRole('log').getByText('hello from svc', { exact: true }).waitFor({ timeout: 30_000 });
    // Its own page has the whole log, live too.
    await panel.getByRole('link', { name: 'Full log' }).click();
    await page.waitForURL(url(`/${REPO}/1/1/1`));
    const log = page.getByRole('log');
    await log.getByText('hello from svc', { exact: true }).waitFor({ timeout: 30_000 });
    // The ANSI colour reaches the page as a class (the page allows no inline styles).
    await log.locator('.fg32').first().waitFor({ timeout: 30_000 });
    expect(await log.locator('.fg32').first().textContent()).toBe('green');

    await page.getByRole('link', { name: `${REPO} #1` }).click();
    await page.getByRole('button', { name: 'stage check: failure' }).waitFor({ timeout: 60_000 });
    // A failed build opens on its first failed step's log.
    await page.getByRole('region', { name: 'log of test' }).waitFor();
    await page.getByRole('button', { name: 'Restart failed stages' }).click();
    await page.waitForURL(url(`/${REPO}/2`));
    await page.getByRole('button', { name: 'stage build: success' }).waitFor();
    const restarted = await waitFor('the restarted build to end', async () => {
      const answer = await fetch(url(`/api/repos/${REPO}/builds/2`), {
        headers: { cookie: await cookieHeader(context) },
      });
      const build = (await answer.json()) as { status: string };
      return ['success', 'failure', 'error', 'killed'].includes(build.status) ? build : undefined;
    });
    // Without FIX the check fails again; what matters is that `build` was reused, not run again.
    expect(restarted.status).toBe('failure');
  }, 120_000);

  it('adds a secret and a cron job in the settings, and runs the job now', async () => {
    await page.goto(url(`/${REPO}/settings`));
    const secrets = page.getByRole('region', { name: 'secrets' });
    await secrets.getByLabel('Name').fill('deploy_token');
    await secrets.getByLabel('Value').fill('s3cr3t-value');
    await secrets.getByRole('button', { name: 'Add secret' }).click();
    await secrets.getByRole('button', { name: 'Delete deploy_token' }).waitFor();
    expect(await page.content()).not.toContain('s3cr3t-value');
    const crons = page.getByRole('region', { name: 'cron jobs' });
    await crons.getByLabel('Name').fill('nightly');
    await crons.getByLabel('Schedule').fill('not a schedule');
    const expected = problems.length;
    await crons.getByRole('button', { name: 'Add cron job' }).click();
    // The API's refusal is shown where the action was taken, in its words.
    await crons
      .getByRole('alert')
      .getByText(/expr: invalid cron expression/)
      .waitFor();
    // That refusal was the point: its 400 (and the browser's note of it) are no problem.
    problems.splice(expected);
    await crons.getByLabel('Schedule').fill('@daily');
    await crons.getByRole('button', { name: 'Add cron job' }).click();
    await crons.getByRole('button', { name: 'Run nightly now' }).click();
    // The pipeline has no cron trigger: every pipeline runs, and the page opens the new build.
    await page.waitForURL(url(`/${REPO}/3`));
    await page.getByText('cron', { exact: true }).waitFor();
    expect(problems.join('\n')).toBe('');
  }, 60_000);

  it('opens a 100,000-line log at once and pages through it, with only the visible lines in the page', async () => {
    const file =
      'kind: pipeline\ntype: docker\nname: long\nclone:\n  disable: true\nsteps:\n- name: count\n  image: local/busybox\n  pull: if-not-exists\n' +
      "  commands:\n  - seq 1 100000\n  - echo '::group::Details'\n  - seq 200001 200005\n  - echo '::endgroup::'\n";
    github.commit(REPO, 'main', { '.drone.yml': file }, 'a long log');
    expect(await github.push(REPO, 'main', github.hooks(REPO)[0]?.url ?? '')).toBe(200);
    const done = await waitFor('the long build to end', async () => {
      const answer = await fetch(url(`/api/repos/${REPO}/builds/4`), {
        headers: { cookie: await cookieHeader(context) },
      });
      const build = (await answer.json()) as { status: string };
      return ['success', 'failure', 'error', 'killed'].includes(build.status) ? build : undefined;
    });
    expect(done.status).toBe('success');
    const started = Date.now();
    await page.goto(url(`/${REPO}/4/1/1`));
    // Four commands' trace lines, 100,000 numbers, a group of five lines with its two markers.
    await page.getByText('100,011 lines').waitFor({ timeout: 20_000 });
    const opened = Date.now() - started;
    const log = page.getByRole('log');
    // A line's text, not its number's link (which reads like a line of `seq`).
    const text = (line: string) => log.locator('.line > span').getByText(line, { exact: true });
    expect(await log.locator('.line').count()).toBeLessThan(300);
    // The test's own types have no DOM: the element is described by the two fields it uses.
    type Scrolled = { scrollTop: number; scrollHeight: number };
    await log.evaluate((element: Scrolled) => {
      element.scrollTop = element.scrollHeight;
    });
    await text('100000').waitFor();
    await log.evaluate((element: Scrolled) => {
      element.scrollTop = element.scrollHeight / 2;
    });
    await text('50000').waitFor();
    expect(await log.locator('.line').count()).toBeLessThan(300);
    // A link to a line opens the log there.
    await page.goto(url(`/${REPO}/4/1/1#L75001`));
    await text('75000').waitFor();
    // The ::group:: at the end is folded to its header; opening it shows its lines, and a search
    // for a line inside a folded group opens it.
    await log.evaluate((element: Scrolled) => {
      element.scrollTop = element.scrollHeight;
    });
    const group = log.getByRole('button', { name: /Details \(7 lines\)/ });
    await group.waitFor();
    expect(await group.getAttribute('aria-expanded')).toBe('false');
    expect(await text('200003').count()).toBe(0);
    await group.click();
    await text('200003').waitFor();
    expect(await group.getAttribute('aria-expanded')).toBe('true');
    await page.getByRole('button', { name: 'Fold all sections' }).click();
    await text('200003').waitFor({ state: 'detached' });
    await page.getByRole('searchbox', { name: 'Search' }).fill('200004');
    await text('200004').waitFor();
    expect(opened).toBeLessThan(20_000);
    expect(problems.join('\n')).toBe('');
  }, 120_000);

  it('makes a runner token on the administration page, shows it once, and revokes it', async () => {
    await page.goto(url('/admin'));
    const section = page.getByRole('region', { name: 'runner tokens' });
    await section.getByLabel('Runner name').fill('ui-runner');
    await section.getByLabel('Labels').fill('pool=ui');
    await section.getByRole('button', { name: 'Make token' }).click();
    const shown = await section.getByRole('status').filter({ hasText: 'svcr_' }).textContent();
    expect(shown).toMatch(/svcr_[A-Za-z0-9_-]{20,}/);
    const entry = section.getByRole('listitem').filter({ hasText: 'ui-runner' });
    await entry.getByText('pool=ui').waitFor();
    await entry.getByRole('button', { name: 'Revoke' }).click();
    await entry.getByText('revoked').waitFor();
    expect(problems.join('\n')).toBe('');
  });

  it('logs out, ending the session on the server', async () => {
    await page.goto(url('/account'));
    const before = await cookieHeader(context);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Log in' }).waitFor();
    expect((await fetch(url('/api/user'), { headers: { cookie: await cookieHeader(context) } })).status).toBe(
      401,
    );
    // A copy of the cookie kept from before the logout no longer works either.
    expect((await fetch(url('/api/user'), { headers: { cookie: before } })).status).toBe(401);
  });
});

async function cookieHeader(context: BrowserContext): Promise<string> {
  return (await context.cookies()).map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
}
