/*
 * "Running now" (/admin/running) in Debian's Chromium, against svc in-process (the API harness with
 * the built web UI): the empty state; a build whose stage a runner started over the runner protocol,
 * with the runner named on the stage and the stage on the runner; a build pushed while the page is
 * open showing up; the time running counting up; the refusal a non-administrator gets; 360 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import { loadWebApp } from '../../src/server/web/index.js';
import { runnerRegistration } from '../../src/store/cases/fixtures.case.js';
import { enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { BUILD_AND_TEST } from '../api/pipelines.js';
import { startStage } from '../api/runner-flow.js';
import { axeViolations } from './axe.js';
import { browserSkip, launchBrowser, signedInContext, watchProblems } from './browser.js';

const skip = browserSkip();

describe.skipIf(skip)('running now in Chromium: builds across repositories with their runners', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let admin: BrowserSession;
  let member: BrowserSession;
  /** Every failed response and console error of the current page. */
  let problems: string[] = [];

  /** `/admin/running` as `as` sees it, `width` px wide, in the light or dark theme. */
  async function open(
    as: BrowserSession,
    width = 1280,
    colorScheme: 'light' | 'dark' = 'light',
  ): Promise<Page> {
    if (browser === undefined) throw new Error('no browser');
    const context = await signedInContext(browser, as.cookie, h.url, {
      viewport: { width, height: 900 },
      colorScheme,
    });
    const page = await context.newPage();
    problems = watchProblems(page);
    await page.goto(`${h.url}/admin/running`);
    await page.getByRole('heading', { name: 'Running now' }).waitFor();
    return page;
  }

  /** Pushes a commit to octocat/app and answers the build it made. */
  async function push(n: number): Promise<Build> {
    h.github.commit(
      'octocat/app',
      'main',
      { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(n) },
      `change ${n}`,
    );
    expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    const repo = (await h.store.repos.findSlug('octocat', 'app')) as Repo;
    return (await h.store.builds.findNumber(repo.id, n)) as Build;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    for (const login of ['octocat', 'member']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], readers: ['member'] });
    admin = await loginAs(h, 'octocat');
    member = await loginAs(h, 'member');
    const octocat = await h.store.users.findLogin('octocat');
    if (octocat === undefined) throw new Error('no octocat');
    await h.store.users.update({ ...octocat, admin: true });
    await enable(h, admin, 'octocat/app');
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('says that nothing is running, and what to do next', async () => {
    const page = await open(admin);
    const builds = page.getByRole('region', { name: 'running builds' });
    await builds.getByText('Nothing is running.').waitFor();
    expect(await builds.innerText()).toContain('as soon as a push, a pull request, a cron job');
    await builds.getByRole('link', { name: 'Administration' }).waitFor();
    await page
      .getByRole('region', { name: 'runners' })
      .getByText('No runner has polled this server yet')
      .waitFor();
    expect(problems).toEqual([]);
  });

  it('shows a running build with the runner its stage runs on, and the runner with that stage', async () => {
    await h.store.runners.register(
      runnerRegistration({ name: 'runner-1', capacity: 2, lastSeen: Date.now() }),
    );
    await h.store.runners.register(
      runnerRegistration({ name: 'runner-idle', capacity: 1, lastSeen: Date.now() }),
    );
    await startStage(h, await push(1), 1, 'runner-1');

    // Reached from the administration page.
    const page = await open(admin);
    await page.goto(`${h.url}/admin`);
    await page.getByRole('link', { name: 'Running now' }).click();
    await page.waitForURL(`${h.url}/admin/running`);
    // The title is set once the page has drawn, just after the address changed.
    await expect.poll(() => page.title()).toBe('Running now · Administration · svc');

    const build = page.getByRole('listitem', { name: 'build octocat/app #1' });
    await build.waitFor();
    expect(await build.locator('.running-head').innerText()).toMatch(/^octocat\/app #1 running for \d+s$/);
    expect(await build.locator('.running-meta').innerText()).toBe('main · octocat · change 1');
    const stages = build.getByRole('list', { name: 'stages of octocat/app #1' }).getByRole('listitem');
    expect(await stages.nth(0).innerText()).toMatch(/^build running on runner-1 \d+s$/);
    expect(await stages.nth(1).innerText()).toBe(
      'test waiting on dependencies — waiting for 1 stage it depends on to finish: build',
    );

    const runner = page.getByRole('listitem', { name: 'runner runner-1' });
    expect(await runner.locator('.running-head').innerText()).toBe('runner-1 1/2 busy');
    expect(await runner.locator('.running-meta').innerText()).toBe(
      'docker · linux/amd64 · last contact just now',
    );
    expect(await runner.getByRole('listitem').innerText()).toBe('octocat/app #1 build running');
    const idle = page.getByRole('listitem', { name: 'runner runner-idle' });
    expect(await idle.innerText()).toContain('0/1 busy');
    expect(await idle.innerText()).toContain('Idle.');

    // The time it runs counts up while the page is open.
    const before = await build.locator('.running-for').innerText();
    await expect
      .poll(() => build.locator('.running-for').innerText(), { timeout: 5000, interval: 250 })
      .not.toBe(before);

    // A build pushed meanwhile shows up without a reload, waiting.
    await push(2);
    const second = page.getByRole('listitem', { name: 'build octocat/app #2' });
    await second.waitFor({ timeout: 10_000 });
    expect(await second.locator('.running-head').innerText()).toMatch(/^octocat\/app #2 pending for \d+s$/);

    await build.getByRole('link', { name: 'octocat/app #1' }).click();
    await page.waitForURL(`${h.url}/octocat/app/1`);
    await page.getByRole('heading', { name: 'octocat/app #1' }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it('fits a phone’s 360 px', async () => {
    const page = await open(admin, 360);
    await page.getByRole('listitem', { name: 'runner runner-1' }).waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    expect(problems).toEqual([]);
  });

  it('has no accessibility violations axe-core finds, with the administration page, in both themes', async () => {
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const page = await open(admin, 1280, scheme);
      await page.getByRole('listitem', { name: 'runner runner-1' }).waitFor();
      for (const violation of await axeViolations(page)) found.push(`${scheme} /admin/running: ${violation}`);
      await page.goto(`${h.url}/admin`);
      await page.getByRole('heading', { name: 'Administration' }).first().waitFor();
      await page.waitForLoadState('networkidle');
      for (const violation of await axeViolations(page)) found.push(`${scheme} /admin: ${violation}`);
      expect(problems).toEqual([]);
      await page.context().close();
    }
    expect(found).toEqual([]);
  }, 60_000);

  it('shows a non-administrator the API’s refusal in words', async () => {
    const page = await open(member);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe('only svc administrators may do this');
    expect(await page.getByRole('region', { name: 'running builds' }).count()).toBe(0);
    // The refusals themselves (the browser logs each) are the only problems: nothing else failed.
    // Both lists are asked for at once, so their answers come in either order.
    const refused = 'console: Failed to load resource: the server responded with a status of 403 (Forbidden)';
    expect(problems.map((problem) => problem.replace(h.url, '')).sort()).toEqual([
      '403 /api/builds/incomplete?stages=true',
      '403 /api/runners',
      refused,
      refused,
    ]);
  });
});
