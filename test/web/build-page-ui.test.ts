/*
 * The build page in Debian's Chromium, against svc in-process (the API harness with the built web
 * UI): its tabs (by click, arrow keys, in the address); each stage's artifacts with their sizes and a
 * zip download, the file list opened on demand, a text file opening in a new tab with its content,
 * an artifact uploaded while the page is open showing up, the empty state of a build without any;
 * the build's status in the browser tab's title and icon; the keyboard shortcuts.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebApp } from '../../src/server/web/index.js';
import type { Artifact } from '../../src/core/artifact.js';
import { stageSource, upload } from '../api/artifacts-support.js';
import { enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { BUILD_AND_TEST } from '../api/pipelines.js';
import { axeViolations } from './axe.js';
import { browserSkip, launchBrowser, SHOTS, signedInContext, watchProblems } from './browser.js';

const skip = browserSkip();

describe.skipIf(skip)('the build page in Chromium: tabs, artifacts, title and icon, shortcuts', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let session: BrowserSession;
  let binaries: Artifact;
  /** Every failed response and console error of the current page. */
  let problems: string[] = [];

  /** The build page of build `number`, on its Artifacts tab, as octocat sees it. */
  async function buildPage(number: number): Promise<Page> {
    const page = await open(`/octocat/app/${number}?tab=artifacts`);
    await page.getByRole('heading', { name: `octocat/app #${number}` }).waitFor();
    return page;
  }

  /** The page at `path`, as octocat sees it (in the dark theme when asked). */
  async function open(path: string, colorScheme: 'light' | 'dark' = 'light', width = 1280): Promise<Page> {
    if (browser === undefined) throw new Error('no browser');
    const context = await signedInContext(browser, session.cookie, h.url, {
      colorScheme,
      viewport: { width, height: 800 },
    });
    const page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(`${h.url}${path}`);
    return page;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true });
    session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    for (const n of [1, 2]) {
      h.github.commit('octocat/app', 'main', { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(n) }, `c${n}`);
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    }
    binaries = await upload(h, await stageSource(h, 'octocat/app', 1, 1), 'binaries', [
      { path: 'dist/app', content: Buffer.alloc(2048, 1), mode: 0o755 },
      { path: 'docs/read me.txt', content: 'hello from the build\n' },
      { path: 'report/index.html', content: '<h1>report</h1>' },
    ]);
    await upload(h, await stageSource(h, 'octocat/app', 1, 2, { number: 1, name: 'unit' }), 'reports', [
      { path: 'junit.xml', content: '<testsuite/>' },
    ]);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('lists each stage’s artifacts with a zip download, and opens a text file in a new tab', async () => {
    const page = await buildPage(1);
    const section = page.getByRole('region', { name: 'artifacts' });
    await section.getByRole('heading', { name: 'Artifacts' }).waitFor();
    expect(await section.getByRole('heading', { level: 3 }).allInnerTexts()).toEqual(['build', 'test']);
    const card = section.getByRole('listitem', { name: 'artifact binaries' });
    expect(await card.innerText()).toMatch(
      /^binaries\s+step compile\s+3 files, 2\.0 KiB\s+expires in 30 days/,
    );
    const download = card.getByRole('link', { name: /^Download \(zip, / });
    expect(await download.getAttribute('href')).toBe(
      `/api/repos/octocat/app/builds/1/artifacts/${binaries.id}/download`,
    );

    // The files are asked for once the list is opened.
    await card.getByText('Files', { exact: true }).click();
    const files = card.getByRole('list', { name: 'files' });
    await files.waitFor();
    expect(await files.getByRole('listitem').allInnerTexts()).toEqual([
      'dist/app 2.0 KiB',
      'docs/read me.txt 21 B',
      'report/index.html 15 B',
    ]);
    const link = files.getByRole('link', { name: 'docs/read me.txt' });
    expect(await link.getAttribute('target')).toBe('_blank');
    const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await tab.waitForLoadState();
    expect(tab.url()).toBe(
      `${h.url}/api/repos/octocat/app/builds/1/artifacts/${binaries.id}/files/docs/read%20me.txt`,
    );
    expect((await tab.locator('body').innerText()).trim()).toBe('hello from the build');
    expect(problems).toEqual([]);
  });

  it('shows an artifact uploaded while the page is open', async () => {
    const page = await buildPage(1);
    const section = page.getByRole('region', { name: 'artifacts' });
    await section.getByRole('listitem', { name: 'artifact reports' }).waitFor();
    await upload(h, await stageSource(h, 'octocat/app', 1, 2, { number: 1, name: 'unit' }), 'coverage', [
      { path: 'coverage.txt', content: '93%' },
    ]);
    // The running build is read again every few seconds, and its artifacts with it.
    await section.getByRole('listitem', { name: 'artifact coverage' }).waitFor({ timeout: 15_000 });
    expect(problems).toEqual([]);
  });

  it('says how to keep artifacts on the tab of a build without any', async () => {
    const page = await buildPage(2);
    const section = page.getByRole('region', { name: 'artifacts' });
    await section.getByText('No artifacts in this build.').waitFor();
    expect(await section.getByRole('link', { name: 'docs/artifacts.md' }).getAttribute('href')).toBe(
      '/docs/artifacts.md',
    );
    expect(await page.getByRole('tab', { name: /^Artifacts/ }).innerText()).toBe('Artifacts 0');
    expect(problems).toEqual([]);
  });

  it('moves between the build’s tabs by click, by arrow key, and keeps the tab in the address', async () => {
    const page = await buildPage(1);
    await page.getByRole('region', { name: 'artifacts' }).waitFor();
    const pipeline = page.getByRole('tab', { name: 'Pipeline' });
    await pipeline.click();
    await page.getByRole('region', { name: 'stage build' }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/1`);
    expect(await page.getByRole('region', { name: 'artifacts' }).count()).toBe(0);
    await page.getByRole('tab', { name: /^Artifacts/ }).click();
    await page.getByRole('region', { name: 'artifacts' }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/1?tab=artifacts`);
    // Right from the last tab comes round to the first; the focus follows the selection.
    await page.keyboard.press('ArrowRight');
    await page.getByRole('region', { name: 'stage build' }).waitFor();
    await page.waitForFunction("document.activeElement?.id === 'build-tab-pipeline'");
    await page.keyboard.press('ArrowLeft');
    await page.getByRole('region', { name: 'artifacts' }).waitFor();
    expect(await page.getByRole('tab', { selected: true }).innerText()).toMatch(/^Artifacts \d+$/);
    await page.goBack();
    await page.getByRole('region', { name: 'stage build' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('says the build’s status in the tab’s title and icon, and gives svc’s back on leaving', async () => {
    const page = await buildPage(1);
    await page.getByRole('region', { name: 'artifacts' }).waitFor();
    const icon = () => page.locator('link[rel="icon"]').getAttribute('href');
    // Its second stage waits for a runner.
    await expect.poll(() => page.title()).toBe('○ octocat/app #1 (pending) · svc');
    expect(decodeURIComponent((await icon()) ?? '')).toContain('fill="#9a6700"');
    await page.getByRole('link', { name: 'octocat/app' }).first().click();
    await page.getByRole('heading', { name: 'octocat/app', exact: true }).waitFor();
    await expect.poll(() => page.title()).toBe('octocat/app · svc');
    expect(await icon()).not.toMatch(/^data:/);
    expect(problems).toEqual([]);
  });

  it('moves through builds and steps with j and k, opens one with Enter, lists the keys with ?', async () => {
    const page = await open('/octocat/app');
    await page.getByRole('link', { name: '#1', exact: true }).waitFor();
    // Each build names its author, with a picture or, where the page may load none, initials.
    expect(await page.locator('td.author').first().innerText()).toMatch(/\boctocat$/);
    expect(await page.locator('td.author svg.avatar text').first().textContent()).toBe('OC');
    const focused = () => page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""');
    await page.keyboard.press('j');
    expect(await focused()).toBe('#2');
    await page.keyboard.press('j');
    expect(await focused()).toBe('#1');
    await page.keyboard.press('k');
    expect(await focused()).toBe('#2');
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'octocat/app #1' }).waitFor();
    // Build 1's first stage was taken by a runner: its steps are listed.
    const steps = page.locator('[data-nav="item"]');
    await steps.first().waitFor();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    expect(await focused()).toBe((await steps.nth(1).innerText()).trim());
    await page.keyboard.press('?');
    const list = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await list.waitFor();
    expect(await list.getByRole('term').allInnerTexts()).toEqual(['j', 'k', 'Enter', '/', 'Esc', '?']);
    await page.keyboard.press('Escape');
    await list.waitFor({ state: 'hidden' });
    expect(problems).toEqual([]);
  });

  it('goes to the search with /, types there without shortcuts, and leaves it with Esc', async () => {
    const page = await open('/');
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.waitFor();
    await page.keyboard.press('/');
    await page.keyboard.type('jk?');
    expect(await search.inputValue()).toBe('jk?');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.keyboard.press('Escape');
    expect(await page.evaluate<string>('document.activeElement?.tagName ?? ""')).toBe('BODY');
    expect(problems).toEqual([]);
  });

  it('has no accessibility violations axe-core finds, on each page, in both themes', async () => {
    const pages: [string, string][] = [
      ['/', 'Repositories'],
      ['/octocat/app', 'octocat/app'],
      ['/octocat/app/1', 'octocat/app #1'],
      ['/octocat/app/1?tab=artifacts', 'octocat/app #1'],
      ['/octocat/app/1?tab=tests', 'octocat/app #1'],
      ['/octocat/app/1/1/1', 'octocat/app #1'],
      ['/octocat/app/settings', 'Settings'],
      ['/account', 'API token'],
      ['/admin/nothing-here', 'Not found'],
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const)
      for (const [path, heading] of pages) {
        const page = await open(path, scheme);
        await page.getByRole('heading', { name: heading }).first().waitFor();
        await page.waitForLoadState('networkidle');
        for (const violation of await axeViolations(page)) found.push(`${scheme} ${path}: ${violation}`);
        if (path.endsWith('?tab=artifacts'))
          await page.screenshot({ path: `${SHOTS}artifacts${scheme === 'dark' ? '-dark' : ''}.png` });
        await page.context().close();
      }
    // The server's own start page, on a server without a git provider: the way to connect one.
    const fresh = await startHarness({ noProvider: true });
    try {
      for (const colorScheme of ['light', 'dark'] as const) {
        if (browser === undefined) throw new Error('no browser');
        const context = await browser.newContext({ colorScheme });
        const page = await context.newPage();
        await page.goto(fresh.url);
        await page.getByText('Connect your git provider').first().waitFor();
        for (const violation of await axeViolations(page))
          found.push(`${colorScheme} start page: ${violation}`);
        await context.close();
      }
    } finally {
      await fresh.close();
    }
    expect(found).toEqual([]);
  }, 120_000);

  it('fits a phone’s 360 px: the stages, the chosen step’s log under them, the waterfall', async () => {
    const page = await open('/octocat/app/1', 'dark', 360);
    await page.getByRole('region', { name: 'stage build' }).waitFor();
    await page.getByRole('region', { name: /^log of / }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(problems).toEqual([]);
  });
});
