/*
 * `npm run screenshots`: pictures of every page of the web UI, written to docs/ui/ and shown in
 * docs/ui.md. Runs svc (real store, the GitHub double) in this process, moves a build along over the
 * runner protocol so that the pages show real states, and photographs them in Chromium.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWebApp } from '../src/server/web/web-app.js';
import { enable, loginAs, tokenOf } from '../test/api/client.js';
import { RPC_SECRET, startHarness, type Harness } from '../test/api/harness.js';
import { launchBrowser, signedInContext } from '../test/web/browser.js';

const OUT = fileURLToPath(new URL('../docs/ui/', import.meta.url));

const PIPELINE = `kind: pipeline
type: docker
name: lint
steps:
- name: vet
  image: golang
  commands: [go vet ./...]
---
kind: pipeline
type: docker
name: test
steps:
- name: unit
  image: golang
  commands: [go test ./...]
- name: race
  image: golang
  commands: [go test -race ./...]
---
kind: pipeline
type: docker
name: deploy
depends_on: [lint, test]
steps:
- name: ship
  image: alpine
  commands: [./deploy.sh]
`;

const LOG = [
  '::group::Download modules',
  'go: downloading golang.org/x/sync v0.10.0',
  'go: downloading github.com/google/go-cmp v0.6.0',
  '::endgroup::',
  '\u001b[1m+ go test ./...\u001b[0m',
  'ok  \texample.com/app/api\t0.412s',
  'ok  \texample.com/app/store\t1.208s',
  '\u001b[31m--- FAIL: TestCheckout (0.02s)\u001b[0m',
  '    checkout_test.go:41: expected 200, got 500',
  'FAIL\texample.com/app/checkout\t0.093s',
  '\u001b[33mwarning:\u001b[0m 1 package failed',
];

async function rpc(
  h: Harness,
  method: string,
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${h.url}${path}`, {
    method,
    headers: { 'x-svc-token': RPC_SECRET, 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.text();
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Runs stage `id` as a runner would, its steps ending `status`, with a log on the first step. */
async function runStage(h: Harness, id: number, steps: string[], status: string, log: string[] = []) {
  const accepted = await rpc(h, 'POST', `/rpc/v2/stage/${id}?machine=runner-eu-1`);
  const now = Math.floor(Date.now() / 1000) - 120;
  const running = await rpc(h, 'PUT', `/rpc/v2/stage/${id}`, {
    ...accepted,
    status: 'running',
    started: now,
    steps: steps.map((name, i) => ({
      id: 0,
      number: i + 1,
      name,
      status: 'running',
      image: 'golang',
      version: 0,
    })),
  });
  const stepIds = (running.steps as { id: number }[]).map((step) => step.id);
  if (log.length > 0) {
    const lines = log.map((out, pos) => ({ pos, out: `${out}\n`, time: pos }));
    await rpc(h, 'POST', `/rpc/v2/step/${stepIds[0]}/logs/upload`, lines);
  }
  const finished = (running.steps as Record<string, unknown>[]).map((step, i) => ({
    ...step,
    status,
    exit_code: status === 'success' ? 0 : 1,
    started: now + i * 5,
    stopped: now + 30 + i * 20,
  }));
  await rpc(h, 'PUT', `/rpc/v2/stage/${id}`, { ...running, steps: finished, status, stopped: now + 80 });
}

async function main(): Promise<void> {
  const web = loadWebApp();
  if (web === undefined) throw new Error('the web UI is not built: npm run build');
  mkdirSync(OUT, { recursive: true });
  const h = await startHarness({ web });
  const browser = await launchBrowser();
  try {
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'hello', admins: ['octocat'] });
    h.github.addRepo({ owner: 'octocat', name: 'docs', admins: ['octocat'] });
    h.github.commit('octocat/hello', 'main', { '.drone.yml': PIPELINE }, 'Check out faster');
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/hello');
    const octocat = await h.store.users.findLogin('octocat');
    if (octocat !== undefined) await h.store.users.update({ ...octocat, admin: true });
    const token = await tokenOf(h, session);
    const post = (path: string, body?: unknown) =>
      fetch(`${h.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      });
    for (let n = 0; n < 3; n++) await post('/api/repos/octocat/hello/builds');
    for (const number of [1, 2, 3]) {
      const build = await h.store.builds.findNumber(
        (await h.store.repos.findSlug('octocat', 'hello'))?.id ?? 0,
        number,
      );
      const stages = await h.store.stages.list(build?.id ?? 0);
      if (number === 3) {
        await runStage(h, stages[0]?.id ?? 0, ['vet'], 'success');
        continue;
      }
      await runStage(h, stages[0]?.id ?? 0, ['vet'], 'success');
      await runStage(h, stages[1]?.id ?? 0, ['unit', 'race'], number === 2 ? 'failure' : 'success', LOG);
      if (number === 1) await runStage(h, stages[2]?.id ?? 0, ['ship'], 'success');
    }
    await post('/api/repos/octocat/hello/secrets', { name: 'docker_password', data: 'hunter2' });
    await post('/api/repos/octocat/hello/cron', { name: 'nightly', expr: '@daily' });
    const shots: [string, string, string][] = [
      ['repositories', '/', 'Repositories'],
      ['repository', '/octocat/hello', 'octocat/hello'],
      ['build', '/octocat/hello/2', 'Restart'],
      ['log', '/octocat/hello/2/2/1', 'FAIL'],
      ['settings', '/octocat/hello/settings', 'Secrets'],
      ['account', '/account', 'API token'],
      ['admin', '/admin', 'Runners'],
      ['running', '/admin/running', 'Running now'],
    ];
    // octocat's browser, in the light or the dark theme.
    const signedIn = (colorScheme: 'light' | 'dark') =>
      signedInContext(browser, session.cookie, h.url, {
        viewport: { width: 1280, height: 860 },
        colorScheme,
      });
    // Every page in the light theme (name.png) and the dark one (name-dark.png).
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await (await signedIn(colorScheme)).newPage();
      for (const [name, path, waitFor] of shots) {
        const file = `${name}${colorScheme === 'dark' ? '-dark' : ''}.png`;
        await page.goto(`${h.url}${path}`);
        await page.getByText(waitFor).first().waitFor();
        await page.waitForLoadState('networkidle');
        await page.screenshot({ path: join(OUT, file), fullPage: name !== 'log' });
        console.log(`docs/ui/${file}`);
      }
    }
    const context = await signedIn('light');
    const page = await context.newPage();
    // The start page of a server without a git provider: the walkthrough for connecting one.
    const fresh = await startHarness({ noProvider: true });
    try {
      await page.goto(fresh.url);
      await page.getByText('Connect your git provider').waitFor();
      await page.screenshot({ path: join(OUT, 'start.png'), fullPage: true });
      console.log('docs/ui/start.png');
    } finally {
      await fresh.close();
    }
    const phone = await context.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
    await phone.goto(`${h.url}/octocat/hello/2`);
    await phone.getByText('Restart').first().waitFor();
    await phone.screenshot({ path: join(OUT, 'build-360px.png') });
    console.log('docs/ui/build-360px.png');
  } finally {
    await browser.close();
    await h.close();
  }
}

await main();
