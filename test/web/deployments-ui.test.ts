/*
 * Issue 35's additions to the build and settings pages in Debian's Chromium, against svc
 * in-process (the API harness with the built web UI): an environment added on the settings page, a
 * promotion waiting for two approvals by different people, approved from the build page with
 * comments and listed under Approvals; a step retried into success ("after 2 attempts"); and the
 * changed files a build's `paths` conditions read.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import { loadWebApp } from '../../src/server/web/index.js';
import { newBuild, newStage } from '../../src/store/cases/fixtures.case.js';
import { call, enable, loginAs, type BrowserSession } from '../api/client.js';
import { startHarness, type Harness } from '../api/harness.js';
import { LINT_AND_UNIT } from '../api/runner-flow.js';
import { browserSkip, launchBrowser } from './browser.js';

const skip = browserSkip();

describe.skipIf(skip)('deployments, retried steps and changed files on the web pages, in Chromium', () => {
  let h: Harness;
  let browser: Browser | undefined;
  let repo: Repo;
  const sessions: Record<string, BrowserSession> = {};
  let problems: string[] = [];

  async function pageAs(login: string, path: string): Promise<Page> {
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
    await page.goto(`${h.url}${path}`);
    return page;
  }

  beforeAll(async () => {
    const web = loadWebApp();
    if (web === undefined) throw new Error('the web UI is not built: run npm run build');
    h = await startHarness({ web });
    for (const login of ['octocat', 'hubot']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true, writers: ['hubot'] });
    h.github.commit('octocat/app', 'main', { '.drone.yml': LINT_AND_UNIT }, 'first');
    for (const login of ['octocat', 'hubot']) {
      sessions[login] = await loginAs(h, login);
      if (login === 'octocat') await enable(h, sessions[login], 'octocat/app');
      else expect((await call(h, '/api/user/repos', { session: sessions[login] })).status).toBe(200);
    }
    repo = (await h.store.repos.findSlug('octocat', 'app')) as Repo;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await h.close();
  });

  it('adds an environment on the settings page and approves a promotion to it twice from the build page', async () => {
    problems = [];
    const settings = await pageAs('octocat', '/octocat/app/settings');
    const section = settings.getByRole('region', { name: 'environments' });
    await section.getByText('No environments.').waitFor();
    const form = section.getByRole('form', { name: 'add an environment' });
    await form.getByLabel('Name').fill('production');
    await form.getByLabel('Approvers').fill('octocat, hubot');
    await form.getByLabel('Approvals needed').fill('2');
    await form.getByLabel('Branches').fill('main');
    await form.getByRole('button', { name: 'Add environment' }).click();
    const table = section.getByRole('table', { name: 'environment list' });
    await table.waitFor();
    expect(await table.getByRole('row').nth(1).innerText()).toMatch(
      /^production\s+2\s+octocat, hubot\s+main\s+1440 min\s+Delete$/,
    );

    const created = await call(h, '/api/repos/octocat/app/builds', {
      method: 'POST',
      session: sessions.octocat,
      csrf: sessions.octocat?.csrf,
    });
    const first = created.json as { number: number };
    const promoted = await call(
      h,
      `/api/repos/octocat/app/builds/${first.number}/promote?target=production`,
      {
        method: 'POST',
        session: sessions.octocat,
        csrf: sessions.octocat?.csrf,
      },
    );
    const number = (promoted.json as { number: number }).number;

    const mine = await pageAs('octocat', `/octocat/app/${number}`);
    const lint = mine.getByRole('group', { name: 'approval of lint' });
    await lint.getByText('Deploys to production: 0 of 2 approvals by different people.').waitFor();
    await lint.getByLabel('Comment').fill('release notes read');
    await lint.getByRole('button', { name: 'Approve' }).click();
    await lint.getByText('1 of 2 approvals').waitFor();
    const list = mine.getByRole('region', { name: 'approvals' });
    await list.getByText('release notes read').waitFor();

    const theirs = await pageAs('hubot', `/octocat/app/${number}`);
    const unit = theirs.getByRole('group', { name: 'approval of unit' });
    await unit.getByText('1 of 2 approvals').waitFor();
    await unit.getByLabel('Comment').fill('ship it');
    await unit.getByRole('button', { name: 'Approve' }).click();
    await unit.waitFor({ state: 'detached' });
    await theirs
      .getByRole('region', { name: 'stage unit' })
      .getByText('Deploys to production, approved.')
      .waitFor();
    const decisions = await theirs
      .getByRole('region', { name: 'approvals' })
      .getByRole('listitem')
      .allInnerTexts();
    expect(decisions).toEqual([
      expect.stringMatching(/^octocat approved lint .*release notes read/),
      expect.stringMatching(/^hubot approved unit .*ship it/),
    ]);
    expect(problems).toEqual([]);
  });

  it('shows a step retried into success and the files a build’s paths conditions read', async () => {
    problems = [];
    const { build, stages } = await h.store.builds.create(
      newBuild(repo.id, {
        status: 'success',
        changedFiles: { files: ['docs/a.md', 'src/main.go'], skipped: ['docs-only'] },
      }),
      [newStage(1, 0, { name: 'test', status: 'success' })],
    );
    const stage = stages[0];
    if (stage === undefined) throw new Error('no stage');
    const step = await h.store.steps.create({
      stageId: stage.id,
      number: 1,
      name: 'flaky',
      status: 'success',
      error: '',
      errIgnore: false,
      exitCode: 0,
      image: 'busybox',
      detached: false,
      dependsOn: [],
      started: 1,
      stopped: 2,
    });
    await h.store.steps.update({ ...step, attempts: 2 });
    const page = await pageAs('octocat', `/octocat/app/${build.number}`);
    await page.getByRole('region', { name: 'stage test' }).getByText('after 2 attempts').waitFor();
    const changed = page.getByRole('region', { name: 'changed files' });
    await changed.getByText('2 changed files · not run for its paths: docs-only').click();
    expect(await changed.getByRole('listitem').allInnerTexts()).toEqual(['docs/a.md', 'src/main.go']);
    expect(problems).toEqual([]);
  });
});
