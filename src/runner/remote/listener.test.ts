import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRunnerListener, type RunnerListener } from './listener.js';
import { StageBoard } from './stage-board.js';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('runner listener: health and dashboard', () => {
  const board = new StageBoard();
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
    });
    without = await startRunnerListener({ host: '127.0.0.1', port: 0, hostName: '', status });
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

  it('has no dashboard when it is disabled, and always answers the health check', async () => {
    expect((await fetch(url(without, '/'))).status).toBe(404);
    const health = await fetch(url(without, '/healthz'));
    expect(await health.text()).toBe('ok\nstages running: 1 of 2\n');
  });
});
