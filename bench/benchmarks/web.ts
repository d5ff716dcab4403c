/*
 * `npm run bench -- web`: the web UI's first load (JavaScript and CSS, gzipped, against the 150 KB
 * budget) and how fast a live log line reaches the page: from the runner's log batch to the line in
 * Chromium's DOM, against the same line reaching a plain event-stream reader (no browser) in the
 * same run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { loadWebApp, WEB_DIST } from '../../src/server/web/web-app.js';
import { enable, loginAs, tokenOf } from '../../test/api/client.js';
import { RPC_SECRET, startHarness } from '../../test/api/harness.js';
import { launchBrowser } from '../../test/web/browser.js';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import { followSse } from '../lib/sse.js';
import { median, percentile, round } from '../lib/stats.js';

const BUDGET_BYTES = 150 * 1024;
const LINES = 30;

const PIPELINE =
  'kind: pipeline\ntype: docker\nname: live\nsteps:\n- name: talk\n  image: alpine\n  commands: [true]\n';

function firstLoad(): BenchResult {
  const html = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/\/assets\/([\w.-]+\.(?:js|css))/g)].map((m) => m[1] ?? '');
  const sizes = files.map(
    (file) => gzipSync(readFileSync(join(WEB_DIST, 'assets', file)), { level: 9 }).length,
  );
  const total = sizes.reduce((a, b) => a + b, 0);
  const js = files.filter((file) => file.endsWith('.js')).length;
  return {
    name: 'web',
    metric: 'first load, gzipped JavaScript and CSS',
    svc: round(total / 1024, 1),
    baseline: BUDGET_BYTES / 1024,
    ratio: round(total / BUDGET_BYTES),
    unit: 'KiB',
    runs: 1,
    p50: round(total / 1024, 1),
    p99: round(total / 1024, 1),
    notes: `${files.length} files (${js} JavaScript) of ${readdirSync(join(WEB_DIST, 'assets')).length} assets; baseline: the issue's 150 KB budget`,
  };
}

export const web: Benchmark = {
  name: 'web',
  needs: [],
  async run() {
    const app = loadWebApp();
    if (app === undefined) throw new Error('the web UI is not built');
    const h = await startHarness({ web: app });
    const browser = await launchBrowser();
    try {
      h.github.addUser({ login: 'octocat' });
      h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
      h.github.commit('octocat/app', 'main', { '.drone.yml': PIPELINE }, 'first');
      const session = await loginAs(h, 'octocat');
      await enable(h, session, 'octocat/app');
      const token = await tokenOf(h, session);
      const build = await fetch(`${h.url}/api/repos/octocat/app/builds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json() as Promise<{ number: number; stages: { id: number }[] }>);
      const stageId = build.stages[0]?.id ?? 0;
      const rpc = (method: string, path: string, body?: unknown) =>
        fetch(`${h.url}${path}`, {
          method,
          headers: { 'x-svc-token': RPC_SECRET, 'content-type': 'application/json' },
          body: body === undefined ? null : JSON.stringify(body),
        });
      const accepted = (await (await rpc('POST', `/rpc/v2/stage/${stageId}?machine=bench`)).json()) as object;
      const running = (await (
        await rpc('PUT', `/rpc/v2/stage/${stageId}`, {
          ...accepted,
          status: 'running',
          started: Math.floor(Date.now() / 1000),
          steps: [{ id: 0, number: 1, name: 'talk', status: 'running', image: 'alpine', version: 0 }],
        })
      ).json()) as { steps: { id: number }[] };
      const stepId = running.steps[0]?.id ?? 0;
      const context = await browser.newContext();
      await context.addCookies(
        session.cookie.split('; ').map((pair) => {
          const [name = '', ...value] = pair.split('=');
          return { name, value: value.join('='), url: h.url };
        }),
      );
      const page = await context.newPage();
      await page.goto(`${h.url}/octocat/app/${build.number}/1/1`);
      await page.getByText('live', { exact: false }).first().waitFor();
      const arrivals = new Map<string, number>();
      const viewer = followSse(
        `${h.url}/api/repos/octocat/app/builds/${build.number}/logs/1/1/stream`,
        token,
        'line-',
        (text, arrived) => {
          for (const mark of text.match(/line-\d+/g) ?? [])
            if (!arrivals.has(mark)) arrivals.set(mark, arrived);
        },
        () => performance.now(),
      );
      await viewer.opened;
      const browserMs: number[] = [];
      const plainMs: number[] = [];
      for (let n = 0; n < LINES; n++) {
        const mark = `line-${n}`;
        const sent = performance.now();
        await rpc('POST', `/rpc/v2/step/${stepId}/logs/batch`, {
          batch: n,
          lines: [{ pos: n, out: `${mark}\n`, time: n }],
        });
        await page.getByText(mark, { exact: true }).waitFor({ timeout: 10_000 });
        browserMs.push(performance.now() - sent);
        const reached = arrivals.get(mark);
        if (reached !== undefined) plainMs.push(reached - sent);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      viewer.close();
      return [
        firstLoad(),
        {
          name: 'web',
          metric: 'live log line, runner batch to the page',
          svc: round(median(browserMs), 1),
          baseline: round(median(plainMs), 1),
          ratio: round(median(browserMs) / Math.max(0.1, median(plainMs))),
          unit: 'ms',
          runs: LINES,
          p50: round(median(browserMs), 1),
          p99: round(percentile(browserMs, 0.99), 1),
          notes:
            'Chromium DOM (playwright polling included) vs a plain SSE reader of the same stream; target ≤ 200 ms',
        },
      ];
    } finally {
      await browser.close();
      await h.close();
    }
  },
};
