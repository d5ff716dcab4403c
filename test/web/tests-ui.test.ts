/*
 * Test reports in the web UI (issue 36) in Debian's Chromium, against svc in-process (the API
 * harness with the built web UI): the build page's Tests section (counts, failures first with their
 * message, status filters, search, pages, a failure's link to its line of the log), a test's page
 * (the strip of its last results and the same as a table, quarantining it), and the repository's
 * flaky and quarantined tests. Results are stored as the server stores a step's reports.
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import type { NewTestResult, TestCase, TestStatus } from '../../src/core/test-report.js';
import { loadWebApp } from '../../src/server/web/index.js';
import { stageSource } from '../api/artifacts-support.js';
import { call, enable, loginAs, type BrowserSession } from '../api/client.js';
import { RPC_SECRET, startHarness, type Harness } from '../api/harness.js';
import { BUILD_AND_TEST } from '../api/pipelines.js';
import { axeViolations } from './axe.js';
import { browserSkip, launchBrowser, SHOTS, signedInContext, watchProblems } from './browser.js';

const skip = browserSkip();
const BUILDS = 12;
const HOUR = 3_600_000;
/** When the results were stored; the pages are looked at three days later (the screenshots' "ago"). */
const T0 = Date.now();
const LATER = new Date(T0 + 72 * HOUR);

const CHECKOUT = { suite: 'example.com/app/checkout', name: 'TestCheckout' };
const CART = { suite: 'example.com/app/checkout', name: 'TestCart' };
const WINDOWS = { suite: 'example.com/app/paths', name: 'TestWindowsPaths' };
const LOGIN = { suite: 'example.com/app/auth', name: 'TestLogin' };
const SLOW = { suite: 'example.com/app/store', name: 'TestSlowQuery' };
const PRICES = Array.from({ length: 55 }, (_, i) => ({
  suite: 'example.com/app/price',
  name: `TestPrice/case_${String(i + 1).padStart(2, '0')}`,
}));

describe.skipIf(skip)('test reports on the web pages, in Chromium', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let session: BrowserSession;
  /** hubot, who may read octocat/app but not change it. */
  let reader: BrowserSession;
  let repo: Repo;
  const cases = new Map<string, TestCase>();
  let problems: string[] = [];

  const caseOf = (test: { name: string }): TestCase => {
    const found = cases.get(test.name);
    if (found === undefined) throw new Error(`no case ${test.name}`);
    return found;
  };

  /** `path` as octocat sees it three days after the results, with every problem collected. */
  async function open(
    path: string,
    width = 1280,
    colorScheme: 'light' | 'dark' = 'light',
    as = session,
  ): Promise<Page> {
    if (browser === undefined) throw new Error('no browser');
    const context = await signedInContext(browser, as.cookie, h.url, {
      viewport: { width, height: 860 },
      colorScheme,
    });
    const page = await context.newPage();
    await page.clock.setFixedTime(LATER);
    problems = watchProblems(page);
    await page.goto(`${h.url}${path}`);
    return page;
  }

  /** Stores one attempt of a step's results, as the server does when it reads the step's reports. */
  async function store(
    number: number,
    step: { number: number; name: string },
    attempt: number,
    results: [{ name: string }, TestStatus, number, Partial<NewTestResult>?][],
  ): Promise<number> {
    const source = await stageSource(h, 'octocat/app', number, 2, step);
    const build = await h.store.builds.findNumber(repo.id, number);
    await h.store.testReports.replaceResults(
      source.stepId,
      attempt,
      results.map(([test, status, durationMs, more]) => ({
        caseId: caseOf(test).id,
        repoId: repo.id,
        buildId: source.buildId,
        stageId: source.stageId,
        stepId: source.stepId,
        attempt,
        status,
        durationMs,
        message: '',
        output: '',
        file: '',
        isNew: false,
        quarantined: false,
        commit: build?.after ?? '',
        created: T0 - (BUILDS - number) * HOUR + attempt * 60_000,
        ...more,
      })),
    );
    return source.stepId;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    for (const login of ['octocat', 'hubot']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true, readers: ['hubot'] });
    session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    reader = await loginAs(h, 'hubot');
    expect((await call(h, '/api/user/repos', { session: reader })).status).toBe(200);
    for (let n = 1; n <= BUILDS; n++) {
      h.github.commit('octocat/app', 'main', { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(n) }, `c${n}`);
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    }
    repo = (await h.store.repos.findSlug('octocat', 'app')) as Repo;
    const all = [CHECKOUT, CART, WINDOWS, LOGIN, SLOW, ...PRICES];
    for (const found of (await h.store.testReports.cases(repo.id, all)).values())
      cases.set(found.name, found);
    const octocat = await h.store.users.findLogin('octocat');
    // Quarantine is opt-in: the repository turned it on.
    await h.store.testReports.setSettings(repo.id, {
      quarantine: true,
      login: 'octocat',
      updated: T0 - 48 * HOUR,
    });
    await h.store.testReports.setQuarantine({
      caseId: caseOf(SLOW).id,
      quarantined: true,
      userId: octocat?.id ?? 0,
      login: 'octocat',
      comment: 'times out on the shared database, #31',
      created: T0 - 24 * HOUR,
    });
    const unit = { number: 1, name: 'unit' };
    const integration = { number: 2, name: 'integration' };
    let unitOfLast = 0;
    for (let n = 1; n <= BUILDS; n++) {
      const last = n === BUILDS;
      const checkout: TestStatus = last || n === 7 ? 'failed' : 'passed';
      const failure = {
        message: 'checkout_test.go:41: expected 200, got 500',
        output: 'checkout_test.go:41: expected 200, got 500\ngoroutine 7 [running]:\ncheckout.TestCheckout()',
        file: 'checkout/checkout_test.go',
        isNew: true,
      };
      unitOfLast = await store(n, unit, 1, [
        [CHECKOUT, checkout, 300 + ((n * 137) % 500), checkout === 'failed' ? failure : {}],
        [CART, 'passed', 40 + n],
        [WINDOWS, 'skipped', 0, { message: 'only on Windows' }],
        ...(last
          ? PRICES.map((test, i): [{ name: string }, TestStatus, number] => [test, 'passed', 5 + i])
          : []),
      ]);
      const slow: [{ name: string }, TestStatus, number, Partial<NewTestResult>] = [
        SLOW,
        last ? 'failed' : 'passed',
        2_000 + n * 100,
        last ? { message: 'context deadline exceeded', quarantined: true } : {},
      ];
      if (n === 9) {
        // Failed, then passed on a retry of the same step: flaky on build 9's commit.
        await store(n, integration, 1, [[LOGIN, 'failed', 900, { message: 'connection refused' }], slow]);
        await store(n, integration, 2, [[LOGIN, 'passed', 850], slow]);
      } else {
        await store(n, integration, 1, [[LOGIN, 'passed', 800 + n * 10], slow]);
      }
    }
    await h.store.testReports.markFlaky([caseOf(LOGIN).id], T0 - 3 * HOUR);
    // The failing step's log, for the failure's link to its line.
    const log = [
      '+ go test ./...',
      'ok  \texample.com/app/price\t0.2s',
      '--- FAIL: TestCheckout (0.31s)',
      'FAIL',
    ];
    const uploaded = await fetch(`${h.url}/rpc/v2/step/${unitOfLast}/logs/upload`, {
      method: 'POST',
      headers: { 'x-svc-token': RPC_SECRET, 'content-type': 'application/json' },
      body: JSON.stringify(log.map((out, pos) => ({ pos, out: `${out}\n`, time: pos }))),
    });
    expect(uploaded.status).toBeLessThan(300);
    mkdirSync(SHOTS, { recursive: true });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('shows the build’s tests: counts, failures first with their message, filters, search, pages', async () => {
    const page = await open(`/octocat/app/${BUILDS}?tab=tests`);
    const section = page.getByRole('region', { name: 'tests' });
    await section.getByRole('heading', { name: 'Tests' }).waitFor();
    await page.getByRole('tab', { name: 'Tests 60 · 2 failed', selected: true }).waitFor();
    expect(await section.getByLabel('test counts').innerText()).toBe(
      '60 tests: 57 passed, 2 failed (1 new), 1 quarantined, 1 skipped, 1 flaky',
    );
    const list = section.getByRole('list', { name: 'test results' });
    const items = list.getByRole('listitem');
    expect(await items.count()).toBe(50);
    const first = items.first();
    expect(await first.innerText()).toMatch(/^failed\s+example\.com\/app\/checkout › TestCheckout\s+new/);
    expect(await first.innerText()).toContain('expected 200, got 500');
    expect(await items.nth(1).innerText()).toMatch(/TestSlowQuery\s+quarantined/);
    await section.getByText('Page 1 of 2', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Next' }).click();
    await section.getByText('Page 2 of 2', { exact: true }).waitFor();
    // The page number changes at the click, the list once page 2 is read.
    await expect.poll(() => items.count()).toBe(10);

    await section.getByRole('button', { name: /^Failed/ }).click();
    await section.getByText('2 tests', { exact: true }).waitFor();
    expect(await items.count()).toBe(2);
    await first.getByText('Output (checkout/checkout_test.go)').click();
    await first.getByText('goroutine 7 [running]:').waitFor();
    await section.screenshot({ path: `${SHOTS}tests.png` });

    await section.getByRole('button', { name: /^All/ }).click();
    await section.getByLabel('Search tests').fill('login');
    await section.getByText('1 test', { exact: true }).waitFor();
    expect(await items.first().innerText()).toMatch(/^passed\s+example\.com\/app\/auth › TestLogin\s+flaky/);
    expect(problems).toEqual([]);
  });

  it('links a failure to the line of its step’s log that names it', async () => {
    const page = await open(`/octocat/app/${BUILDS}?tab=tests`);
    await page.getByRole('link', { name: 'log of TestCheckout' }).click();
    await page.getByText('1 of 1', { exact: true }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/${BUILDS}/2/1?find=TestCheckout`);
    expect(await page.locator('.log .line.hit').innerText()).toContain('--- FAIL: TestCheckout (0.31s)');
    expect(problems).toEqual([]);
  });

  it('shows a test’s last results as a strip and a table, and quarantines it', async () => {
    const id = caseOf(CHECKOUT).id;
    const page = await open(`/octocat/app/${BUILDS}?tab=tests`);
    await page
      .getByRole('link', { name: /TestCheckout/ })
      .first()
      .click();
    await page.getByRole('heading', { name: 'Last results' }).waitFor();
    expect(page.url()).toBe(`${h.url}/octocat/app/tests/${id}`);
    // The heading is there at once; the strip and the table once the history is read.
    const strip = page.locator('svg.test-strip');
    await strip.waitFor();
    expect(await strip.locator('rect.bar').count()).toBe(BUILDS);
    expect(await strip.locator('rect.bar-failed').count()).toBe(2);
    // Newest right: the last bar is build 12's failure, its tooltip says so.
    expect(await strip.locator('a').last().locator('title').textContent()).toMatch(/^#12 failed \(new\)/);
    const table = page.getByRole('table', { name: 'results' });
    expect(await table.getByRole('row').count()).toBe(BUILDS + 1);
    expect(await table.getByRole('row').nth(1).innerText()).toMatch(/^#12\s+failed new\s+/);

    const quarantine = page.getByRole('region', { name: 'quarantine' });
    await quarantine.getByText('Never quarantined.').waitFor();
    await quarantine.getByLabel('Comment').fill('fails under load, #42');
    await quarantine.getByRole('button', { name: 'Quarantine' }).click();
    await quarantine.getByRole('button', { name: 'Lift quarantine' }).waitFor();
    await page.getByRole('heading', { level: 1 }).getByText('quarantined').waitFor();
    expect(await quarantine.getByRole('list', { name: 'quarantine log' }).innerText()).toMatch(
      /^octocat quarantined it 2 days ago\s*“?fails under load, #42/,
    );
    const detail = await call(h, `/api/repos/octocat/app/tests/${id}`, { session });
    expect(detail.json).toMatchObject({
      quarantined: true,
      quarantine_log: [{ quarantined: true, login: 'octocat', comment: 'fails under load, #42' }],
    });
    await page.screenshot({ path: `${SHOTS}test-history.png`, fullPage: true });
    expect(problems).toEqual([]);
  });

  it('shows the API’s refusal to quarantine a test to someone who may only read it', async () => {
    const id = caseOf(CART).id;
    const page = await open(`/octocat/app/tests/${id}`, 1280, 'light', reader);
    await page.getByRole('button', { name: 'Quarantine' }).click();
    const refusal = page.getByRole('region', { name: 'quarantine' }).getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/^write (access to|rights on) octocat\/app .*needed/);
    expect(problems.filter((problem) => !problem.includes('403'))).toEqual([]);
    const detail = await call(h, `/api/repos/octocat/app/tests/${id}`, { session });
    expect(detail.json).toMatchObject({ quarantined: false, quarantine_log: [] });
  });

  it('lists the repository’s flaky tests with their evidence, and its quarantined tests', async () => {
    const page = await open('/octocat/app');
    await page.getByRole('link', { name: 'Flaky tests' }).click();
    const flaky = page.getByRole('region', { name: 'flaky tests' });
    const card = flaky.getByRole('listitem', { name: 'flaky test TestLogin' });
    await card.waitFor();
    const build9 = await h.store.builds.findNumber(repo.id, 9);
    expect(await card.innerText()).toMatch(
      /example\.com\/app\/auth › TestLogin\s+flaky\s+last seen 3 days ago/,
    );
    expect(await card.getByRole('list', { name: 'evidence' }).innerText()).toMatch(
      new RegExp(`^${build9?.after.slice(0, 10)} → #9 attempt 2 passed, #9 failed$`),
    );
    const setting = page.getByRole('region', { name: 'test settings' });
    await setting.getByRole('button', { name: 'Turn quarantine off' }).waitFor();
    expect(await setting.innerText()).toMatch(/Quarantine is on: quarantined tests’ failures/);
    const quarantined = page.getByRole('region', { name: 'quarantined tests' });
    await quarantined.getByRole('listitem').nth(1).waitFor();
    expect(await quarantined.getByRole('listitem').allInnerTexts()).toEqual([
      'example.com/app/checkout › TestCheckout quarantined',
      'example.com/app/store › TestSlowQuery quarantined',
    ]);
    await page.screenshot({ path: `${SHOTS}flaky-tests.png`, fullPage: true });
    await card.getByRole('link', { name: /TestLogin/ }).click();
    await page.locator('svg.test-strip').waitFor();
    expect(await page.locator('svg.test-strip rect.bar').count()).toBe(BUILDS + 1);
    expect(problems).toEqual([]);
  });

  it('has no accessibility violations axe-core finds, on the tests’ pages, in both themes', async () => {
    // Each page, and its screenshot in the dark theme (the light ones are taken above).
    const pages: [string, RegExp, string][] = [
      [`/octocat/app/${BUILDS}?tab=tests`, /^Tests$/, 'tests'],
      [`/octocat/app/tests/${caseOf(CHECKOUT).id}`, /^Last results$/, 'test-history'],
      ['/octocat/app/tests', /^Flaky tests$/, 'flaky-tests'],
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const)
      for (const [path, heading, shot] of pages) {
        const page = await open(path, 1280, scheme);
        await page.getByRole('heading', { name: heading }).first().waitFor();
        await page.waitForLoadState('networkidle');
        for (const violation of await axeViolations(page)) found.push(`${scheme} ${path}: ${violation}`);
        if (scheme === 'dark') await page.screenshot({ path: `${SHOTS}${shot}-dark.png`, fullPage: true });
        await page.context().close();
      }
    expect(found).toEqual([]);
    expect(problems).toEqual([]);
  }, 60_000);

  it('fits a phone’s 360 px, in the dark theme too', async () => {
    const paths = [
      `/octocat/app/${BUILDS}?tab=tests`,
      `/octocat/app/tests/${caseOf(CHECKOUT).id}`,
      '/octocat/app/tests',
    ];
    for (const path of paths) {
      const page = await open(path, 360, 'dark');
      await page
        .getByRole('heading', { name: /^(Tests|Last results|Flaky tests)$/ })
        .first()
        .waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(overflow, path).toBeLessThanOrEqual(360);
      expect(problems).toEqual([]);
    }
  });
});
