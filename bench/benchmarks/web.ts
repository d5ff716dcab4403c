/*
 * `npm run bench -- web`: the web UI's first load (JavaScript and CSS, gzipped, against the 150 KB
 * budget) and how fast a live log line reaches the page: from the runner's log batch to the line in
 * Chromium's DOM, against the same line reaching a plain event-stream reader (no browser) in the
 * same run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { loadWebApp, WEB_DIST } from '../../src/server/web/web-app.js';
import { enable, loginAs, tokenOf } from '../../test/api/client.js';
import { RPC_SECRET, startHarness } from '../../test/api/harness.js';
import { launchBrowser, signedInContext } from '../../test/web/browser.js';
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

const BIG = 1_000_000;

/**
 * A finished step's log of a million lines: from opening its page until the count shows (one GET
 * of the stored log, parsed and split in the page), then a jump to the middle and the end, each
 * until the line is in the page. Baseline: the same GET read and parsed by Node.
 */
async function bigLog(
  h: Awaited<ReturnType<typeof startHarness>>,
  page: Page,
  stepId: number,
  number: number,
): Promise<BenchResult> {
  const lines = Array.from({ length: BIG }, (_, pos) => ({
    pos,
    out: `line ${pos + 1} of the big log\n`,
    time: 0,
  }));
  await h.store.logs.create(stepId, lines);
  // The step must be done for the page to read the stored log in one request.
  const step = await h.store.steps.find(stepId);
  if (step !== undefined)
    await h.store.steps.update({ ...step, status: 'success', stopped: Math.floor(Date.now() / 1000) });
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const plainStart = performance.now();
  const raw = await fetch(`${h.url}/api/repos/octocat/app/builds/${number}/logs/1/1`, {
    headers: { cookie },
  });
  const parsed = (await raw.json()) as unknown[];
  const plain = performance.now() - plainStart;
  if (parsed.length !== BIG) throw new Error(`the log has ${parsed.length} lines`);
  const opened: number[] = [];
  for (let run = 0; run < 3; run++) {
    // A new document each time: the same path with another `#` would not load the page again.
    await page.goto('about:blank');
    const start = performance.now();
    await page.goto(`${h.url}/octocat/app/${number}/1/1#L500000`);
    await page.getByText('1,000,000 lines').waitFor({ timeout: 60_000 });
    await page.getByText('line 500000 of the big log', { exact: true }).waitFor({ timeout: 10_000 });
    opened.push(performance.now() - start);
  }
  return {
    name: 'web',
    metric: 'a 1,000,000-line log opened at a linked line',
    svc: round(median(opened), 0),
    baseline: round(plain, 0),
    ratio: round(median(opened) / plain),
    unit: 'ms',
    runs: opened.length,
    p50: round(median(opened), 0),
    p99: round(percentile(opened, 0.99), 0),
    notes:
      'page load, one GET of the stored log, parse, split, render the lines in view; baseline: the same GET read and parsed by Node',
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
      const context = await signedInContext(browser, session.cookie, h.url);
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
      const big = await bigLog(h, page, stepId, build.number);
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
        big,
      ];
    } finally {
      await browser.close();
      await h.close();
    }
  },
};
