/*
 * Build insights in the web UI (issue 36) in Debian's Chromium, against svc in-process (the API
 * harness with the built web UI): a repository's Insights page (summary, the charts as SVG with a
 * point or bar per day, the 7 / 30 / 90 days range in the URL, the numbers' tables as the API
 * says them) and an organisation's (two repositories together; the API's 404 for an outsider).
 * The daily rollups are seeded directly, as the server keeps them when builds finish. The server
 * takes its range from its own clock, so the seeds are relative to the real current day and no
 * assertion names a date.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf, DAY_MS, type BuildFacts } from '../../src/core/insights.js';
import type { Repo } from '../../src/core/repo.js';
import { loadWebApp } from '../../src/server/web/index.js';
import { percent } from '../../web/src/components/chart-scale.js';
import { millis } from '../../web/src/components/units.js';
import type { Insights } from '../../web/src/wire.js';
import { call, enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { axeViolations } from './axe.js';
import { browserSkip, launchBrowser, SHOTS, signedInContext, watchProblems } from './browser.js';

const skip = browserSkip();
const NOW = Date.now();
const TODAY = dayOf(NOW);
/** The browser's clock, fixed (at noon of the real day) for stable screenshots. */
const FIXED = new Date(TODAY * DAY_MS + 12 * 3_600_000);
const TESTS = [
  { suite: 'example.com/app/checkout', name: 'TestCheckout' },
  { suite: 'example.com/app/auth', name: 'TestLogin' },
  { suite: 'example.com/app/store', name: 'TestSlowQuery' },
  { suite: 'example.com/app/price', name: 'TestRounding' },
];
const SECOND = 1000;
const MINUTE = 60 * SECOND;

describe.skipIf(skip)('build insights on the web pages, in Chromium', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let session: BrowserSession;
  let outsider: BrowserSession;
  let problems: string[] = [];
  let nextBuild = 1_000_000;

  /** `path` as `as` sees it, with every problem collected. */
  async function open(path: string, width = 1280, colorScheme: 'light' | 'dark' = 'light', as = session) {
    if (browser === undefined) throw new Error('no browser');
    const context = await signedInContext(browser, as.cookie, h.url, {
      viewport: { width, height: 900 },
      colorScheme,
    });
    const page = await context.newPage();
    await page.clock.setFixedTime(FIXED);
    problems = watchProblems(page);
    await page.goto(`${h.url}${path}`);
    return page;
  }

  async function api(path: string): Promise<Insights> {
    const answer = await call(h, path, { session });
    expect(answer.status, path).toBe(200);
    return answer.json as Insights;
  }

  /** The points (or bars) a section's chart draws. */
  const count = (page: Page, section: string, what = 'circle.point') =>
    page.getByRole('region', { name: section }).locator(`svg.chart-svg ${what}`).count();

  /** One build's facts on `ago` days before today; `k` varies it. */
  function facts(repo: Repo, ago: number, k: number, caseIds: number[]): BuildFacts {
    const succeeded = (ago + k) % 5 !== 0;
    const [checkout = 0, login = 0, slow = 0, rounding = 0] = caseIds;
    return {
      repoId: repo.id,
      day: TODAY - ago,
      succeeded,
      durationMs: 4 * MINUTE + ((ago * 37 + k * 53) % 180) * SECOND + (ago < 10 ? 2 * MINUTE : 0),
      queueMs: ((ago * 13 + k * 7) % 40) * SECOND + (k === 2 ? 3 * MINUTE : 0),
      steps: [
        { name: 'clone', durationMs: 4 * SECOND + k * 300, failed: false },
        { name: 'test', durationMs: 2 * MINUTE + ((ago * 11) % 60) * SECOND, failed: !succeeded },
        { name: 'build', durationMs: 50 * SECOND + ((ago * 7) % 20) * SECOND, failed: false },
        { name: 'lint', durationMs: 20 * SECOND, failed: false },
      ],
      stages: [
        { kind: 'docker', busyMs: 3 * MINUTE + ((ago * 17) % 90) * SECOND },
        { kind: 'kubernetes', busyMs: 1 * MINUTE + ((ago * 29) % 60) * SECOND },
      ],
      failedTests: succeeded ? [] : ago % 2 === 0 ? [checkout, slow] : [checkout, rounding],
      flakyTests: ago % 4 === 0 ? [login] : ago % 9 === 0 ? [slow] : [],
    };
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    for (const login of ['octocat', 'mallory']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true });
    h.github.addRepo({ owner: 'octocat', name: 'lib', private: true });
    h.github.addRepo({ owner: 'octocat', name: 'empty', private: true });
    session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    await enable(h, session, 'octocat/lib');
    await enable(h, session, 'octocat/empty');
    outsider = await loginAs(h, 'mallory');
    expect((await call(h, '/api/user/repos', { session: outsider })).status).toBe(200);
    const app = (await h.store.repos.findSlug('octocat', 'app')) as Repo;
    const lib = (await h.store.repos.findSlug('octocat', 'lib')) as Repo;
    const cases = await h.store.testReports.cases(app.id, TESTS);
    const caseIds = TESTS.map((test) => [...cases.values()].find((c) => c.name === test.name)?.id ?? 0);
    // Every one of the last 30 days has builds in octocat/app (1 to 3); octocat/lib built on 10.
    for (let ago = 0; ago < 30; ago++) {
      for (let k = 0; k < 1 + (ago % 3); k++)
        await h.store.insights.record(nextBuild++, facts(app, ago, k, caseIds));
      for (let n = 0; n < 2 + (ago % 4); n++) await h.store.insights.countCache(app.id, TODAY - ago, true);
      if (ago % 3 === 0) await h.store.insights.countCache(app.id, TODAY - ago, false);
      if (ago < 10)
        await h.store.insights.record(nextBuild++, { ...facts(lib, ago, 0, []), failedTests: [] });
    }
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('shows a repository’s summary and a point or bar per day in each chart, for 7 days', async () => {
    const expected = await api('/api/insights/repos/octocat/app?days=7');
    const page = await open('/octocat/app');
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByRole('button', { name: '30 days', pressed: true }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/insights`);
    await page.getByRole('button', { name: '7 days' }).click();
    await page.getByRole('img', { name: /Build duration .* last 7 days/ }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/insights?days=7`);
    const terms = await page.locator('dl.summary > div').allInnerTexts();
    expect(terms.map((t) => t.replace(/\s+/g, ' '))).toEqual([
      `Builds ${expected.builds.total}`,
      `Success rate ${percent(expected.builds.success_rate)}`,
      `Duration p50 ${millis(expected.builds.duration_p50_ms)}`,
      `Duration p95 ${millis(expected.builds.duration_p95_ms)}`,
      `Queue p95 ${millis(expected.builds.queue_p95_ms)}`,
      `Cache hit rate ${percent(expected.caches.hit_rate)}`,
    ]);
    // 1, 2 or 3 builds a day: 13 in the last 7 days, a point a day for p50 and p95.
    expect(expected.builds.total).toBe(13);
    expect(await count(page, 'build duration')).toBe(14);
    expect(await count(page, 'build duration', 'polyline')).toBe(2);
    expect(await count(page, 'success rate')).toBe(7);
    expect(await count(page, 'time in the queue')).toBe(14);
    expect(await count(page, 'cache hit rate')).toBe(7);
    expect(await count(page, 'runner busy time', 'rect.bar')).toBe(14);
    // Each chart is an image with a title: duration, success, queue, caches, runners.
    expect(await page.locator('svg.chart-svg > title').count()).toBe(5);
    expect(await page.getByRole('img', { name: /last 7 days/ }).count()).toBe(5);
    const steps = page.getByRole('list', { name: 'slowest steps' }).getByRole('listitem');
    expect(await steps.count()).toBe(4);
    expect(await steps.first().innerText()).toMatch(/^test\n/);
    expect(await page.locator('svg.sparkline').count()).toBe(4);
    const failing = page.getByRole('list', { name: 'most failing tests' }).getByRole('listitem');
    expect(await failing.count()).toBe(expected.failing_tests.length);
    const worst = expected.failing_tests[0];
    expect(worst?.name).toBe('TestCheckout');
    expect(await failing.first().innerText()).toContain(`${worst?.failures}× failed`);
    await failing
      .first()
      .getByRole('link', { name: /TestCheckout/ })
      .click();
    await page.getByRole('heading', { name: 'Last results' }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/tests/${worst?.id}`);
    expect(problems).toEqual([]);
  });

  it('refetches for 30 and 90 days, the range in the URL, the numbers as the API says', async () => {
    const page = await open('/octocat/app/insights?days=7');
    await page.getByRole('region', { name: 'success rate' }).locator('svg').waitFor();
    for (const days of [30, 90]) {
      const expected = await api(`/api/insights/repos/octocat/app?days=${days}`);
      const asked = page.waitForRequest((request) => request.url().endsWith(`/octocat/app?days=${days}`));
      await page.getByRole('button', { name: `${days} days` }).click();
      await asked;
      expect(page.url()).toBe(`${h.url}/octocat/app/insights?days=${days}`);
      await page.getByRole('button', { name: `${days} days`, pressed: true }).waitFor();
      const section = page.getByRole('region', { name: 'build duration' });
      await section.getByRole('img', { name: new RegExp(`last ${days} days`) }).waitFor();
      // A point per day with builds (the last 30), a row per day of the range.
      expect(await count(page, 'success rate')).toBe(30);
      if (days === 30) {
        expect(await page.locator('dl.summary dd').first().innerText()).toBe(String(expected.builds.total));
        await page.screenshot({ path: `${SHOTS}insights.png`, fullPage: true });
        // Folded at first; it stays open for the next range.
        await section.getByText('Show the numbers').click();
      }
      const rows = section.getByRole('table', { name: 'build duration per day' }).locator('tbody tr');
      expect(await rows.count()).toBe(days);
      // A row: the day (its date for machines), then its builds, p50 and p95 as the page says them.
      const dates = await Promise.all(
        (await rows.locator('time').all()).map((time) => time.getAttribute('datetime')),
      );
      const cells = (await rows.allInnerTexts()).map((text) => text.split('\t').slice(1));
      const shown = dates.map((date, at) => [date, ...(cells[at] ?? [])]);
      expect(shown).toEqual(
        expected.daily.map((day) => [
          day.date,
          String(day.builds),
          day.builds > 0 ? millis(day.duration_p50_ms) : '–',
          day.builds > 0 ? millis(day.duration_p95_ms) : '–',
        ]),
      );
    }
    await page.goBack();
    await page.getByRole('button', { name: '30 days', pressed: true }).waitFor();
    expect(problems).toEqual([]);
  });

  it('shows an organisation’s repositories together, and the API’s 404 to an outsider', async () => {
    const app = await api('/api/insights/repos/octocat/app?days=30');
    const lib = await api('/api/insights/repos/octocat/lib?days=30');
    expect(lib.builds.total).toBe(10);
    const page = await open('/orgs/octocat/insights?days=30');
    await page.getByRole('heading', { name: 'octocat › Insights' }).waitFor();
    const builds = page.locator('dl.summary dd').first();
    await builds.waitFor();
    expect(await builds.innerText()).toBe(String(app.builds.total + lib.builds.total));
    expect(await count(page, 'success rate')).toBe(30);
    // Tests are named, not linked: their pages are a repository's.
    const failing = page.getByRole('list', { name: 'most failing tests' });
    expect(await failing.getByRole('link').count()).toBe(0);
    expect(problems).toEqual([]);

    const refused = await open('/orgs/octocat/insights', 1280, 'light', outsider);
    const alert = refused.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toMatch(/repositories of octocat that you may read not found/);
    expect(problems.filter((problem) => !problem.includes('404'))).toEqual([]);
  });

  it('says when there were no builds', async () => {
    const page = await open('/octocat/empty/insights?days=7');
    await page.getByText('No builds in the last 7 days.').waitFor();
    expect(await page.locator('svg.chart-svg').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('has no accessibility violations axe-core finds, on both insights pages, in both themes', async () => {
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const)
      for (const [path, shot] of [
        ['/octocat/app/insights?days=30', 'insights'],
        ['/orgs/octocat/insights?days=30', 'org-insights'],
      ] as const) {
        const page = await open(path, 1280, scheme);
        await page.getByRole('heading', { name: 'Build duration' }).waitFor();
        await page.waitForLoadState('networkidle');
        for (const violation of await axeViolations(page)) found.push(`${scheme} ${path}: ${violation}`);
        if (scheme === 'dark') await page.screenshot({ path: `${SHOTS}${shot}-dark.png`, fullPage: true });
        await page.context().close();
      }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('fits a phone’s 360 px, in the dark theme too', async () => {
    const page = await open('/octocat/app/insights?days=30', 360, 'dark');
    await page.getByRole('region', { name: 'runner busy time' }).locator('svg.chart-svg').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    await page.screenshot({ path: `${SHOTS}insights-360px.png`, fullPage: true });
    expect(problems).toEqual([]);
  });
});
