/**
 * Issue 36, test reports end to end: a real `svc server` (the built-in git provider, its
 * in-process Docker runner, SQLite) builds a push whose step writes a JUnit report with two
 * failures. The API, `svc build tests` and the build's page in Debian's Chromium show them; a restart
 * of the same commit where one of them passes makes that test flaky (in the API, the CLI and the
 * browser); once the other is quarantined (`svc test quarantine`), a restart whose only failure is
 * quarantined leaves the step, and the build, green. The browser steps are skipped alone when
 * Chromium is missing outside CI.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { WEB_DIST } from '../../src/server/web/web-app.js';
import { call } from '../api/client.js';
import { gitAs } from '../support/git-client.js';
import { localGitAdmin } from '../support/local-git-admin.js';
import { runSvc } from '../support/svc-process.js';
import { browserSkip, launchBrowser, watchProblems } from '../web/browser.js';
import { freePort, providerServerEnv, startServer, waitFor, type SvcProcess } from './system.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const noBrowser = docker.skip || browserSkip();

/** `divides` always fails; `waits` fails on build 1 only (a timing problem); `adds` passes. */
const PIPELINE = `kind: pipeline
type: docker
name: test
steps:
- name: unit
  image: local/busybox
  pull: if-not-exists
  commands:
  - mkdir -p reports
  - W=""; if [ "$\${DRONE_BUILD_NUMBER}" = 1 ]; then W='<failure message="timed out after 5s">slow</failure>'; fi
  - printf '<testsuite name="unit"><testcase classname="unit" name="adds" time="0.01"/><testcase classname="unit" name="divides" time="0.02"><failure message="expected 2, got 3">at divide.go:7</failure></testcase><testcase classname="unit" name="waits" time="5">%s</testcase></testsuite>\\n' "$W" > reports/unit.xml
  - if grep -q "<failure" reports/unit.xml; then echo "tests failed"; exit 1; fi
  artifacts:
    name: reports
    paths: [reports/*.xml]
    reports:
      junit: [reports/*.xml]
`;

interface Tests {
  counts: Record<string, number>;
  tests: { case: { id: number; name: string; flaky: boolean }; status: string; message: string }[];
}

/** Build 1's Tests section before any restart: nothing is new on a repository's first build. */
const COUNTS_OF_BUILD_1 = '3 tests: 1 passed, 2 failed, 0 quarantined, 0 skipped, 0 flaky';

const git = gitAs({ name: 'Ada', email: 'ada@example.com' });

describe.skipIf(docker.skip)('test reports: a real server and its runner', () => {
  let server: SvcProcess | undefined;
  let port = 0;
  let token = '';
  let browser: Browser | undefined;
  /** ada's page in Chromium, logged in through the login form; its problems are collected. */
  let page: Page;
  let problems: string[] = [];
  const url = (path = '') => `http://127.0.0.1:${port}${path}`;
  const api = (path: string, init: { method?: string; body?: unknown } = {}) =>
    call({ url: url() }, path, { token, ...init });
  const svc = async (...args: string[]) => {
    const run = await runSvc(args, { cwd: tmpdir(), env: { SVC_SERVER: url(), SVC_TOKEN: token } });
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };
  const settled = (number: number) =>
    waitFor(
      `build ${number} to end`,
      async () => {
        const answer = (await api(`/api/repos/ada/hello/builds/${number}`)).json as { status?: string };
        return ['success', 'failure', 'error'].includes(answer.status ?? '') ? answer : undefined;
      },
      180_000,
    );
  const log = async (number: number) =>
    ((await api(`/api/repos/ada/hello/builds/${number}/logs/1/2`)).json as { out: string }[]).map((l) =>
      l.out.trimEnd(),
    );
  const restart = async (number: number) => {
    const answer = await api(`/api/repos/ada/hello/builds/${number}`, { method: 'POST' });
    expect(answer.status, answer.text).toBe(200);
    return (answer.json as { number: number }).number;
  };

  beforeAll(async () => {
    port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-reports-data-'));
    server = await startServer({
      ...providerServerEnv(port, dataDir, {}),
      SVC_SERVER_PORT: `:${port}`,
      SVC_SCML_ENABLED: 'true',
      SVC_RUNNER_LOCAL: 'true',
      SVC_STORAGE_DIR: join(dataDir, 'files'),
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    });
    ({ token } = await localGitAdmin(url(), () => server?.log() ?? '', 'ada', 'ada-password-1'));
    expect((await api('/api/local/repos', { method: 'POST', body: { name: 'hello' } })).status).toBe(201);
    expect((await api('/api/repos/ada/hello', { method: 'POST' })).status).toBe(200);
    if (noBrowser) return;
    // The server serves the built web UI; without it the pages would be empty.
    if (!existsSync(join(WEB_DIST, 'index.html')))
      throw new Error('the web UI is not built: run npm run build');
    browser = await launchBrowser();
    page = await (await browser.newContext()).newPage();
    problems = watchProblems(page);
    await page.goto(url('/login'));
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password').fill('ada-password-1');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('heading', { name: 'Repositories' }).waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Build `number`'s Tests section and its list of results, once the section is shown. */
  const testsOf = async (number: number) => {
    await page.goto(url(`/ada/hello/${number}`));
    // The build opens on its pipeline; the Tests tab says the counts before it is chosen.
    const tab = page.getByRole('tab', { name: /^Tests/ });
    await tab.getByText(/failed/).waitFor();
    await tab.click();
    const section = page.getByRole('region', { name: 'tests' });
    await section.getByRole('heading', { name: 'Tests' }).waitFor();
    return { section, items: section.getByRole('list', { name: 'test results' }).getByRole('listitem') };
  };

  it('shows a failed step’s two failures in its log, the API and the CLI', async () => {
    const work = mkdtempSync(join(tmpdir(), 'svc-reports-work-'));
    git(work, 'init', '-q', '-b', 'main');
    writeFileSync(join(work, '.drone.yml'), PIPELINE);
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'tests with a report');
    git(work, 'push', '-q', `http://ada:${token}@127.0.0.1:${port}/git/ada/hello.git`, 'main');
    expect((await settled(1)).status).toBe('failure');
    expect(await log(1)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^artifacts: uploaded the test reports of "reports" \(the step failed; /),
        'tests: 1 passed, 2 failed — from 1 report',
      ]),
    );
    const tests = (await api('/api/repos/ada/hello/builds/1/tests')).json as Tests;
    expect(tests.counts).toMatchObject({ total: 3, passed: 1, failed: 2, skipped: 0 });
    expect(tests.tests.map((t) => [t.case.name, t.status])).toEqual([
      ['divides', 'failed'],
      ['waits', 'failed'],
      ['adds', 'passed'],
    ]);
    expect(tests.tests[0]?.message).toBe('expected 2, got 3');
    const text = await svc('build', 'tests', 'ada/hello', '1');
    expect(text).toContain('3 tests: 1 passed, 2 failed, 0 skipped');
    expect(text).toMatch(/FAILED\s+unit › divides\s+20 ms\s+test\/unit\s+expected 2, got 3/);
    expect(await svc('build', 'tests', 'ada/hello', '1', '--status', 'passed')).not.toContain('divides');
  }, 240_000);

  it.skipIf(noBrowser)(
    'shows the two failures first on build 1’s page, and a test’s results strip',
    async () => {
      const { section, items } = await testsOf(1);
      expect(await section.getByLabel('test counts').innerText()).toBe(COUNTS_OF_BUILD_1);
      // Failures first, each with its message; the passing test last, with none.
      expect(await items.locator('.test-line').allInnerTexts()).toEqual([
        expect.stringMatching(/^failed\s+unit › divides\s/),
        expect.stringMatching(/^failed\s+unit › waits\s/),
        expect.stringMatching(/^passed\s+unit › adds\s/),
      ]);
      expect(await items.locator('.test-message').allInnerTexts()).toEqual([
        'expected 2, got 3',
        'timed out after 5s',
      ]);
      expect(await items.last().locator('.test-message').count()).toBe(0);
      // The name links to the test's page: its last results, one bar per run, newest right.
      await items.first().getByRole('link', { name: 'unit › divides' }).click();
      await page.waitForURL(/\/ada\/hello\/tests\/\d+$/);
      await page.getByRole('heading', { name: 'Last results' }).waitFor();
      const strip = page.locator('svg.test-strip');
      await strip.waitFor();
      expect(await strip.locator('rect.bar').count()).toBe(1);
      expect(await strip.locator('a').getAttribute('aria-label')).toMatch(/^#1 failed/);
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it('finds the test that passed on a restart of the same commit flaky, with the builds as evidence', async () => {
    const second = await restart(1);
    expect((await settled(second)).status).toBe('failure');
    expect(await log(second)).toContain(
      'tests: 2 passed, 1 failed; 1 flaky (failed and passed on this commit) — from 1 report',
    );
    const flaky = (await api('/api/repos/ada/hello/tests/flaky')).json as {
      name: string;
      evidence: { results: { build: number; status: string }[] }[];
    }[];
    expect(flaky.map((f) => f.name)).toEqual(['waits']);
    expect(flaky[0]?.evidence[0]?.results.map((r) => [r.build, r.status])).toEqual([
      [second, 'passed'],
      [1, 'failed'],
    ]);
    expect(await svc('test', 'flaky', 'ada/hello')).toMatch(/unit › waits/);
  }, 240_000);

  it.skipIf(noBrowser)(
    'marks the test that passed on the restart flaky on build 1’s page and its own',
    async () => {
      const { items } = await testsOf(1);
      const waits = items.filter({ hasText: 'unit › waits' });
      await waits.locator('.badge-flaky').getByText('flaky').waitFor();
      await waits.getByRole('link', { name: 'unit › waits' }).click();
      await page.getByRole('heading', { level: 1 }).getByText('flaky').waitFor();
      await page.getByText(/^Failed and passed on one commit/).waitFor();
      // Oldest first: build 1's failure, then the restart's (build 2) pass, each bar linking its build.
      const runs = page.locator('svg.test-strip a.result');
      await runs.nth(1).waitFor();
      expect(await runs.count()).toBe(2);
      expect(await runs.first().getAttribute('aria-label')).toMatch(/^#1 failed,/);
      expect(await runs.last().getAttribute('aria-label')).toMatch(/^#2 passed,/);
      expect(await runs.first().locator('rect').getAttribute('class')).toBe('bar bar-failed');
      expect(await runs.last().locator('rect').getAttribute('class')).toBe('bar bar-passed');
      expect(problems).toEqual([]);
    },
    60_000,
  );

  it('leaves the step green when its only failure is of a quarantined test', async () => {
    const tests = (await api('/api/repos/ada/hello/builds/1/tests?status=failed&q=divides')).json as Tests;
    const divides = tests.tests[0]?.case.id ?? 0;
    // Quarantine is opt-in: refused until an admin turns it on for the repository.
    const refused = await runSvc(['test', 'quarantine', 'ada/hello', String(divides)], {
      cwd: tmpdir(),
      env: { SVC_SERVER: url(), SVC_TOKEN: token },
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('quarantine is off for ada/hello');
    expect(await svc('test', 'settings', 'ada/hello', '--quarantine', 'on')).toMatch(/Quarantine:?\s+on/);
    expect(
      await svc('test', 'quarantine', 'ada/hello', String(divides), '--comment', 'tracked in #42'),
    ).toContain('Quarantined');
    const third = await restart(1);
    const done = (await settled(third)) as {
      status?: string;
      stages?: { steps?: { name: string; status: string; exit_code: number }[] }[];
    };
    expect(done.status).toBe('success');
    expect(done.stages?.[0]?.steps?.find((s) => s.name === 'unit')).toMatchObject({
      status: 'success',
      exit_code: 1,
    });
    expect(await log(third)).toEqual(
      expect.arrayContaining([
        // `waits` failed on build 1 of this commit: still flaky.
        'tests: 2 passed, 1 failed (1 quarantined); 1 flaky (failed and passed on this commit) — from 1 report',
        'tests: every failure is of a quarantined test: the step passes (it exited 1)',
      ]),
    );
    const counted = (await api(`/api/repos/ada/hello/builds/${third}/tests`)).json as Tests;
    expect(counted.counts).toMatchObject({ failed: 1, quarantined: 1 });
    const info = await svc('test', 'info', 'ada/hello', String(divides));
    expect(info).toMatch(/ada\s+quarantined\s+tracked in #42/);
  }, 240_000);
});
