/*
 * The start page in Debian's Chromium, against svc in-process (the API harness with the built web
 * UI): each repository's sparkline of its last 20 builds' durations, oldest left, coloured by
 * status, named in words for assistive technology; in the dark theme and on a 360 px wide screen.
 */
import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadWebApp } from '../../src/server/web/index.js';
import { newBuild } from '../../src/store/cases/fixtures.case.js';
import { enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { browserSkip, launchBrowser, signedInContext, watchProblems } from './browser.js';

const skip = browserSkip();

/**
 * Builds 1..21 of octocat/app took 10 s × their number; every fourth failed. Build 22 runs. The
 * last 20 (3..22) hold 14 successes, and 3..21's median is build 12's 120 s.
 */
const NAME = 'recent builds: 14 of 20 succeeded, median 2m 00s';

/** The attribute `name` of every element `elements` finds, in order. */
async function attributes(elements: Locator, name: string): Promise<(string | null)[]> {
  return Promise.all((await elements.all()).map((element) => element.getAttribute(name)));
}

describe.skipIf(skip)('the start page in Chromium: sparklines of recent builds', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let session: BrowserSession;
  /** Every failed response and console error of the current page. */
  let problems: string[] = [];

  /** The start page as octocat sees it, once its repositories are listed. */
  async function startPage(options: BrowserContextOptions = {}): Promise<Page> {
    if (browser === undefined) throw new Error('no browser');
    const context = await signedInContext(browser, session.cookie, h.url, options);
    const page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(`${h.url}/`);
    await page.getByRole('list', { name: 'repositories' }).waitFor();
    return page;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true });
    h.github.addRepo({ owner: 'octocat', name: 'lib' });
    h.github.addRepo({ owner: 'octocat', name: 'quiet' });
    session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    await enable(h, session, 'octocat/lib');
    await enable(h, session, 'octocat/quiet');
    const app = await h.store.repos.findSlug('octocat', 'app');
    if (app === undefined) throw new Error('octocat/app is enabled');
    const start = Date.now() - 86_400_000;
    for (let n = 1; n <= 21; n++) {
      const started = start + n * 600_000;
      const status = n % 4 === 0 ? 'failure' : 'success';
      await h.store.builds.create(newBuild(app.id, { status, started, finished: started + n * 10_000 }), []);
    }
    await h.store.builds.create(newBuild(app.id, { status: 'running', started: Date.now() - 30_000 }), []);
    const lib = await h.store.repos.findSlug('octocat', 'lib');
    if (lib === undefined) throw new Error('octocat/lib is enabled');
    for (const [status, seconds] of [
      ['success', 45],
      ['failure', 15],
    ] as const) {
      await h.store.builds.create(
        newBuild(lib.id, { status, started: start, finished: start + seconds * 1000 }),
        [],
      );
    }
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('draws each repository’s last 20 builds, oldest left, named by successes and median', async () => {
    const page = await startPage();
    const card = page.getByRole('listitem').filter({ hasText: 'octocat/app' });
    const sparkline = card.getByRole('img', { name: NAME });
    await sparkline.waitFor();
    expect(await sparkline.locator(':scope > title').textContent()).toBe(NAME);
    const bars = sparkline.locator('rect.bar');
    expect(await bars.count()).toBe(20);
    // Oldest left: build 3 first, the running build 22 last, each bar's tooltip naming its build.
    expect(await bars.first().locator('title').textContent()).toBe('#3 success, 30s');
    expect(await bars.nth(1).locator('title').textContent()).toBe('#4 failure, 40s');
    expect(await bars.last().locator('title').textContent()).toMatch(/^#22 running, \d+s$/);
    expect(await bars.nth(1).getAttribute('class')).toBe('bar tone-bad');
    expect(await bars.last().getAttribute('class')).toBe('bar tone-run');
    // As tall as the build took, to the longest (build 21's 210 s): build 3's 30 s is a seventh.
    const heights = await attributes(bars, 'height');
    expect(heights[18]).toBe('24');
    expect(heights[0]).toBe(String(Math.round((30 / 210) * 24)));
    // A repository with fewer builds has as wide a sparkline, its bars on the right: the list lines up.
    const lib = page
      .getByRole('listitem')
      .filter({ hasText: 'octocat/lib' })
      .getByRole('img', { name: 'recent builds: 1 of 2 succeeded, median 30s' });
    expect(await lib.getAttribute('width')).toBe(await sparkline.getAttribute('width'));
    expect(await attributes(lib.locator('rect.bar'), 'x')).toEqual(['126', '133']);
    // A repository without builds has none.
    const quiet = page.getByRole('listitem').filter({ hasText: 'octocat/quiet' });
    expect(await quiet.innerText()).toMatch(/no builds yet/);
    expect(await quiet.getByRole('img').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('keeps the status colours in the dark theme and fits a 360 px wide screen', async () => {
    const page = await startPage({ colorScheme: 'dark', viewport: { width: 360, height: 740 } });
    const card = page.getByRole('listitem').filter({ hasText: 'octocat/app' });
    const sparkline = card.getByRole('img', { name: NAME });
    await sparkline.waitFor();
    // The test's TypeScript has no DOM types: the page works it out from an expression.
    const fills = await page.evaluate<string[]>(
      `[...document.querySelectorAll('svg[aria-label="${NAME}"] rect.bar')].map((rect) => getComputedStyle(rect).fill)`,
    );
    // The dark theme's --ok, --bad and --run (style.css), bright on its dark background.
    expect(fills[0]).toBe('rgb(63, 185, 80)');
    expect(fills[1]).toBe('rgb(248, 81, 73)');
    expect(fills[19]).toBe('rgb(68, 147, 248)');
    const box = await sparkline.boundingBox();
    const cardBox = await card.boundingBox();
    if (box === null || cardBox === null) throw new Error('the sparkline is shown');
    expect(box.width).toBe(138);
    expect(box.x + box.width).toBeLessThanOrEqual(cardBox.x + cardBox.width);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(problems).toEqual([]);
  });
});
