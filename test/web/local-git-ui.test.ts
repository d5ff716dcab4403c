/*
 * Issue 33 in a real browser: a new user's first build with svc's built-in git provider. A real
 * `svc server` (its in-process Docker runner, no provider account anywhere) and Debian's Chromium:
 * the setup link makes the administrator, the repositories page makes a repository and shows the
 * git commands, the real `git` runs them with the account's password, the build appears under them
 * and goes green live on its page; a failing change pushed with an API token goes red and is
 * restarted, and the branch shows the status svc reported — with no error in the browser's console.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { WEB_DIST } from '../../src/server/web/web-app.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from '../e2e/system.js';
import { axeViolations } from './axe.js';
import { browserSkip, launchBrowser, SHOTS, watchProblems } from './browser.js';
import { gitAs } from '../support/git-client.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const skip = docker.skip || browserSkip();

const pipeline = (command: string) =>
  `kind: pipeline\ntype: docker\nname: build\nsteps:\n- name: greet\n  image: local/busybox\n  pull: if-not-exists\n  commands:\n  - cat README.md\n  - ${command}\n`;

const git = gitAs({ name: 'Grace', email: 'grace@example.com' });

describe.skipIf(skip)('the built-in git provider in Chromium: from nothing to a green build', () => {
  let server: SvcProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let port = 0;
  const problems: string[] = [];
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const work = mkdtempSync(join(tmpdir(), 'svc-local-ui-work-'));

  beforeAll(async () => {
    if (!existsSync(join(WEB_DIST, 'index.html')))
      throw new Error('the web UI is not built: run npm run build');
    port = await freePort();
    server = await startServer({
      ...providerServerEnv(port, mkdtempSync(join(tmpdir(), 'svc-local-ui-data-')), {}),
      SVC_SERVER_PORT: `:${port}`,
      SVC_SCML_ENABLED: 'true',
      SVC_RUNNER_LOCAL: 'true',
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('makes the administrator through the setup link and a repository, whose first push builds green live', async () => {
    const link = await waitFor('the setup link in the log', () =>
      Promise.resolve(/Open (http:\/\/\S+\/setup\?token=[\w-]+)/.exec(server?.log() ?? '')?.[1]),
    );
    // The setup page, in both themes, before it is used (once).
    for (const colorScheme of ['light', 'dark'] as const) {
      if (browser === undefined) throw new Error('no browser');
      const context = await browser.newContext({ colorScheme });
      const setup = await context.newPage();
      await setup.goto(link.replace(/^http:\/\/[^/]+/, url()));
      await setup.getByLabel('Name').waitFor();
      expect(await axeViolations(setup), `${colorScheme} setup page`).toEqual([]);
      await context.close();
    }
    await page.goto(link.replace(/^http:\/\/[^/]+/, url()));
    await page.getByLabel('Name').fill('grace');
    await page.getByLabel('Password').fill('grace-password-1');
    await page.getByRole('button', { name: 'Create the account' }).click();
    await page.getByRole('heading', { name: 'Repositories' }).waitFor();

    const box = page.getByRole('region', { name: 'create a repository' });
    await box.getByLabel('Name').fill('hello');
    await box.getByRole('button', { name: 'Create' }).click();
    const commands = box.locator('pre');
    await commands.waitFor();
    expect(await commands.textContent()).toBe(
      `git remote add svc ${url('/git/grace/hello.git')}\ngit push svc main`,
    );
    await page.getByRole('link', { name: 'grace/hello' }).waitFor();
    await box.getByText('Waiting for the first push…').waitFor();

    // The two commands, git given the account's password.
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, 'README.md'), 'hello from the browser test\n');
    writeFileSync(join(work, '.drone.yml'), pipeline('echo green'));
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'first');
    git(
      work,
      'remote',
      'add',
      'svc',
      url('/git/grace/hello.git').replace('://', '://grace:grace-password-1@'),
    );
    git(work, 'push', '-q', 'svc', 'main');
    // The push's build shows up where the commands are, as it is made; its page streams the log.
    await box.getByRole('link', { name: 'Build #1' }).click({ timeout: 30_000 });
    await page.waitForURL(url('/grace/hello/1'));
    const graph = page.getByRole('img', { name: 'stage graph' });
    await graph.getByRole('button', { name: 'stage build: success' }).waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: 'greet' }).click();
    await page.getByRole('log').getByText('hello from the browser test', { exact: true }).waitFor();
  }, 120_000);

  it('pushes a failing change with an API token, which builds red, and restarts it', async () => {
    await page.goto(url('/account'));
    await page.getByRole('button', { name: 'New token' }).click();
    const token = (await page.locator('code.token').textContent()) ?? '';
    expect(token).not.toBe('');
    const remote = `http://grace:${token}@127.0.0.1:${port}/git/grace/hello.git`;
    const graph = page.getByRole('img', { name: 'stage graph' });

    writeFileSync(join(work, '.drone.yml'), pipeline('exit 1'));
    git(work, 'commit', '-q', '-am', 'break it');
    await page.goto(url('/grace/hello'));
    git(work, 'push', '-q', remote, 'main');
    await page.getByRole('link', { name: '#2' }).click({ timeout: 30_000 });
    await page.waitForURL(url('/grace/hello/2'));
    await graph.getByRole('button', { name: 'stage build: failure' }).waitFor({ timeout: 60_000 });
    await page.getByRole('button', { name: 'Restart failed stages' }).click();
    await page.waitForURL(url('/grace/hello/3'));
    await graph.getByRole('button', { name: 'stage build: failure' }).waitFor({ timeout: 60_000 });
    // The provider's side: the branch's commit with the status svc reported, linking the build.
    await page.goto(url('/grace/hello'));
    const main = page.getByRole('region', { name: 'branches and tags' }).getByRole('row', { name: /main/ });
    await main.getByText('break it').waitFor();
    const status = main.getByRole('link', { name: /failure/ });
    await status.waitFor();
    expect(await status.getAttribute('href')).toMatch(/\/grace\/hello\/3$/);
    expect(problems.join('\n')).toBe('');
  }, 180_000);

  it('makes another account on the administration page, which logs in with its password', async () => {
    await page.goto(url('/admin'));
    const accounts = page.getByRole('region', { name: 'git accounts' });
    await accounts.getByLabel('Name').fill('linus');
    await accounts.getByLabel('Password').fill('linus-password-1');
    await accounts.getByRole('button', { name: 'Add account' }).click();
    await accounts.getByRole('status').getByText('linus can log in now.').waitFor();
    if (browser === undefined) throw new Error('no browser');
    const other = await (await browser.newContext()).newPage();
    await other.goto(url('/login'));
    await other.getByLabel('Username').fill('linus');
    await other.getByLabel('Password').fill('linus-password-1');
    await other.getByRole('button', { name: 'Log in' }).click();
    await other.getByRole('heading', { name: 'Repositories' }).waitFor();
    // Not an administrator: the account's rights are its own, and grace's private repository is not among them.
    expect(await other.getByRole('link', { name: 'grace/hello' }).count()).toBe(0);
    // Their own password, changed on their account page, given the current one.
    await other.goto(url('/account'));
    const form = other.getByRole('region', { name: 'password' });
    await form.getByLabel('Current password').fill('linus-password-1');
    await form.getByLabel('New password').fill('linus-password-2');
    await form.getByRole('button', { name: 'Change password' }).click();
    await form.getByRole('status').getByText('Saved.').waitFor();
    expect(problems.join('\n')).toBe('');
  }, 60_000);

  it('has no accessibility violations axe-core finds, on its own pages and the server’s, in both themes', async () => {
    if (browser === undefined) throw new Error('no browser');
    const cookies = await page.context().cookies();
    const pages: [string, string, boolean][] = [
      ['/login', 'Log in', false],
      ['/', 'Repositories', true],
      ['/grace/hello', 'grace/hello', true],
      ['/account', 'password', true],
      ['/admin', 'Administration', true],
    ];
    const found: string[] = [];
    for (const colorScheme of ['light', 'dark'] as const)
      for (const [path, landmark, loggedIn] of pages) {
        const context = await browser.newContext({ colorScheme });
        if (loggedIn) await context.addCookies(cookies);
        const each = await context.newPage();
        const seen = watchProblems(each);
        await each.goto(url(path));
        await each.getByText(landmark).first().waitFor();
        await each.waitForLoadState('networkidle');
        for (const violation of await axeViolations(each)) found.push(`${colorScheme} ${path}: ${violation}`);
        if (path === '/login')
          await each.screenshot({ path: `${SHOTS}login${colorScheme === 'dark' ? '-dark' : ''}.png` });
        expect(seen, path).toEqual([]);
        await context.close();
      }
    expect(found).toEqual([]);
  }, 90_000);
});
