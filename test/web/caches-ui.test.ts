/*
 * The settings page's caches in Debian's Chromium, against svc in-process (the API harness with
 * the built web UI): the empty state and its link to the docs, the list grouped by key, removing a
 * key in every scope, "Remove all" only after a confirmation — and for writers the list without
 * the buttons, for readers no section at all (and no request the API would refuse).
 */
import { Readable } from 'node:stream';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadWebApp } from '../../src/server/web/index.js';
import { call, enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { browserSkip, launchBrowser } from './browser.js';

const skip = browserSkip();
const ODD_KEY = 'node-{linux}/deps v2';

describe.skipIf(skip)('build caches on the settings page, in Chromium', () => {
  let h: Harness;
  let browser: Browser | undefined;
  const sessions: Record<string, BrowserSession> = {};
  /** Every failed response and console error of the current page. */
  let problems: string[] = [];
  /** Every request the current page made to the caches' API. */
  let cacheCalls: string[] = [];

  async function put(scope: string, key: string, size: number, minutes: number): Promise<void> {
    const repo = await h.store.repos.findSlug('octocat', 'app');
    if (repo === undefined) throw new Error('octocat/app is not enabled');
    const blob = `caches/${repo.id}/${minutes}`;
    await h.blobs.put(blob, Readable.from([Buffer.alloc(8)]));
    const created = Date.now() - (60 - minutes) * 60_000;
    await h.store.caches.put({ repoId: repo.id, scope, key, size, blob, created, used: created });
  }

  /** The settings page as `login` sees it. */
  async function settingsAs(login: string): Promise<Page> {
    if (browser === undefined) throw new Error('no browser');
    const context = await browser.newContext();
    await context.addCookies(
      (sessions[login]?.cookie ?? '').split('; ').map((pair) => {
        const [name = '', ...value] = pair.split('=');
        return { name, value: value.join('='), url: h.url };
      }),
    );
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
    page.on('request', (request) => {
      if (request.url().includes('/caches')) cacheCalls.push(`${request.method()} ${request.url()}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${h.url}/octocat/app/settings`);
    await page.getByRole('heading', { name: 'octocat/app settings' }).waitFor();
    return page;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    for (const login of ['octocat', 'writer', 'reader']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'octocat',
      name: 'app',
      private: true,
      writers: ['writer'],
      readers: ['reader'],
    });
    for (const login of ['octocat', 'writer', 'reader']) {
      sessions[login] = await loginAs(h, login);
      if (login === 'octocat') await enable(h, sessions[login], 'octocat/app');
      // svc learns the permission when they list their repositories.
      else expect((await call(h, '/api/user/repos', { session: sessions[login] })).status).toBe(200);
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });
  beforeEach(async () => {
    problems = [];
    cacheCalls = [];
    await h.caches.remove((await h.store.repos.findSlug('octocat', 'app'))!);
  });

  it('says what caches are when there are none, with a link to the docs', async () => {
    const page = await settingsAs('octocat');
    const caches = page.getByRole('region', { name: 'caches' });
    await caches.getByText('No caches.').waitFor();
    expect(await caches.getByRole('link', { name: 'docs/caches.md' }).getAttribute('href')).toBe(
      '/docs/caches.md',
    );
    expect(await caches.getByRole('button').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('lists the caches by key and removes a key in every scope, and all only once confirmed', async () => {
    await put('refs/heads/main', ODD_KEY, 48_213_504, 1);
    await put('refs/pull/7/head', ODD_KEY, 1536, 2);
    await put('refs/heads/main', 'npm-abc', 512, 3);
    const page = await settingsAs('octocat');
    const caches = page.getByRole('region', { name: 'caches' });
    const table = caches.getByRole('table', { name: 'cache list' });
    await table.waitFor();
    // Keys in the order of their newest entry; a key's scopes under it.
    expect(await table.getByRole('row').allInnerTexts()).toEqual([
      expect.stringMatching(/^Key\s+Scope\s+Size\s+Last used\s+Actions$/),
      expect.stringMatching(/^npm-abc\s+refs\/heads\/main\s+512 B\s+\d+ minutes ago\s+Remove$/),
      expect.stringMatching(
        /^node-\{linux\}\/deps v2\s+refs\/pull\/7\/head\s+1\.5 KiB\s+\d+ minutes ago\s+Remove$/,
      ),
      expect.stringMatching(/^refs\/heads\/main\s+46\.0 MiB\s+\d+ minutes ago$/),
    ]);

    await caches.getByRole('button', { name: `Remove ${ODD_KEY}` }).click();
    await table.getByText(ODD_KEY).waitFor({ state: 'detached' });
    expect(cacheCalls).toContain(
      `DELETE ${h.url}/api/repos/octocat/app/caches/${encodeURIComponent(ODD_KEY)}`,
    );
    expect(
      (await h.store.caches.list((await h.store.repos.findSlug('octocat', 'app'))!.id)).map((c) => c.key),
    ).toEqual(['npm-abc']);

    // "Remove all" asks first; Cancel leaves everything.
    await caches.getByRole('button', { name: 'Remove all' }).click();
    const confirm = caches.getByRole('group', { name: 'confirm removing all caches' });
    await confirm.getByText('Remove the only cache?').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(cacheCalls.filter((c) => c.startsWith('DELETE'))).toHaveLength(1);
    await caches.getByRole('button', { name: 'Remove all' }).click();
    await confirm.getByRole('button', { name: 'Yes, remove all' }).click();
    await caches.getByText('No caches.').waitFor();
    expect(cacheCalls).toContain(`DELETE ${h.url}/api/repos/octocat/app/caches`);
    expect(problems).toEqual([]);
  });

  it('shows writers the list without the buttons, and readers no caches at all', async () => {
    await put('refs/heads/main', 'npm-abc', 512, 1);
    const writer = await settingsAs('writer');
    const caches = writer.getByRole('region', { name: 'caches' });
    await caches.getByRole('table', { name: 'cache list' }).getByText('npm-abc').waitFor();
    await caches.getByText('Only the repository’s admins can remove caches.').waitFor();
    expect(await caches.getByRole('button').count()).toBe(0);
    expect(problems).toEqual([]);

    cacheCalls = [];
    const reader = await settingsAs('reader');
    // The page is there (its other sections say what the reader may not do); caches are not asked for.
    await reader.getByRole('region', { name: 'secrets' }).waitFor();
    expect(await reader.getByRole('region', { name: 'caches' }).count()).toBe(0);
    expect(cacheCalls).toEqual([]);
  });
});
