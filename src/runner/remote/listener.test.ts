import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunnerListener, type RunnerListener } from './listener.js';
import { StageBoard } from './stage-board.js';
import { HeldEntries } from '../../platform/metrics/held-entries.js';
import { ProcessGauges } from '../../platform/metrics/process-gauges.js';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('runner listener: health and dashboard', () => {
  const board = new StageBoard();
  const held = new HeldEntries();
  held.add('board', board);
  const process = new ProcessGauges();
  let withDashboard: RunnerListener;
  let without: RunnerListener;
  const url = (listener: RunnerListener, path: string) => `http://127.0.0.1:${listener.port}${path}`;

  beforeAll(async () => {
    const status = () => ({ running: 1, capacity: 2 });
    withDashboard = await startRunnerListener({
      host: '127.0.0.1',
      port: 0,
      hostName: '',
      status,
      dashboard: { username: 'admin', password: 's3cret', realm: 'CI "runners"', board, runner: 'r1' },
      metrics: { process, held },
    });
    without = await startRunnerListener({
      host: '127.0.0.1',
      port: 0,
      hostName: '',
      status,
      metrics: { process, held },
    });
  });
  afterAll(async () => {
    await withDashboard.close();
    await without.close();
  });

  it('asks for basic authentication, and refuses a wrong user name or password', async () => {
    const anonymous = await fetch(url(withDashboard, '/'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="CI runners", charset="UTF-8"');
    for (const [user, password] of [
      ['admin', 'wrong'],
      ['other', 's3cret'],
    ] as const) {
      const refused = await fetch(url(withDashboard, '/'), {
        headers: { authorization: basic(user, password) },
      });
      expect(refused.status).toBe(401);
    }
  });

  it('shows the running stages and the recently finished ones, with names escaped', async () => {
    board.started({ id: 1, repo: 'octocat/<hello>', build: 7, stage: 'build', started: Date.now() - 3_000 });
    board.started({ id: 2, repo: 'octocat/app', build: 8, stage: 'test', started: Date.now() - 65_000 });
    board.finished(2, 'failure', Date.now());
    const page = await fetch(url(withDashboard, '/'), {
      headers: { authorization: basic('admin', 's3cret') },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await page.text();
    expect(html).toContain('<h1>svc runner r1</h1>');
    expect(html).toContain('Running: 1 of 2');
    expect(html).toContain(
      '<td>octocat/&#60;hello&#62;</td><td>#7</td><td>build</td><td class="running">running</td>',
    );
    expect(html).toMatch(
      /<td>octocat\/app<\/td><td>#8<\/td><td>test<\/td><td class="failure">failure<\/td><td>1m \d+s<\/td>/,
    );
    expect(html).not.toContain('<hello>');
  });

  it('shows its process gauges at /metrics to the dashboard user only, collecting first with ?gc=full', async () => {
    expect((await fetch(url(withDashboard, '/metrics'))).status).toBe(401);
    const wrong = await fetch(url(withDashboard, '/metrics'), {
      headers: { authorization: basic('admin', 'wrong') },
    });
    expect(wrong.status).toBe(401);
    const authorization = basic('admin', 's3cret');
    const plain = await fetch(url(withDashboard, '/metrics'), { headers: { authorization } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const before = await plain.text();
    expect(before).toMatch(/^svc_process_resident_memory_bytes \d+$/m);
    expect(before).toMatch(/^svc_memory_entries\{holder="board.recent"\} \d+$/m);
    // A runner has no database of its own.
    expect(before).not.toContain('svc_database_connections');
    const collected = await fetch(url(withDashboard, '/metrics?gc=full'), { headers: { authorization } });
    const after = await collected.text();
    const fullGcs = (text: string): number => Number(/^svc_process_full_gcs (\d+)$/m.exec(text)?.[1]);
    expect(fullGcs(after)).toBeGreaterThan(fullGcs(before));
    expect(after).toMatch(/^svc_process_heap_after_gc_bytes \d+$/m);
    const bad = await fetch(url(withDashboard, '/metrics?gc=now'), { headers: { authorization } });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toBe('gc= takes one value: full\n');
  });

  it('has no dashboard when it is disabled, and always answers the health check', async () => {
    expect((await fetch(url(without, '/'))).status).toBe(404);
    // Nor gauges: without the dashboard's password, nobody could be told from anybody.
    expect((await fetch(url(without, '/metrics'))).status).toBe(404);
    const health = await fetch(url(without, '/healthz'));
    expect(await health.text()).toBe('ok\nstages running: 1 of 2\n');
  });
});
