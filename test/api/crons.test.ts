import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const FILE = `kind: pipeline
type: docker
name: nightly
trigger:
  cron: [nightly]
steps:
- name: echo
  image: alpine
  commands: [echo \${DRONE_CRON}]
`;

interface CronAnswer {
  id: number;
  name: string;
  expr: string;
  next: number;
  prev: number;
  branch: string;
  target: string;
  disabled: boolean;
  version: number;
}

describe('cron API', () => {
  let h: Harness;
  let token: string;
  let sha: string;
  const base = '/api/repos/octocat/app/cron';

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    sha = h.github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'the nightly file');
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    token = await tokenOf(h, session);
  });
  afterAll(() => h.close());

  const send = (path: string, method = 'GET', body?: unknown) =>
    call(h, path, { method, token, ...(body === undefined ? {} : { body }) });

  it('creates a job with its next run in epoch seconds, on the default branch unless given', async () => {
    const before = Math.floor(Date.now() / 1000);
    const answer = await send(base, 'POST', { name: 'nightly', expr: '@daily' });
    expect(answer.status).toBe(200);
    const cron = answer.json as CronAnswer;
    expect(cron).toMatchObject({ name: 'nightly', expr: '@daily', branch: 'main', prev: 0, disabled: false });
    expect(cron.next).toBeGreaterThan(before);
    expect(cron.next - before).toBeLessThanOrEqual(86_400);
    expect((await send(`${base}/nightly`)).json).toEqual(cron);
    const seconds = await send(base, 'POST', {
      name: 'often',
      expr: '*/30 * * * * *',
      branch: 'dev',
      target: 'qa',
    });
    expect(seconds.json).toMatchObject({ name: 'often', branch: 'dev', target: 'qa' });
    const list = await send(base);
    expect((list.json as CronAnswer[]).map((c) => c.name)).toEqual(['nightly', 'often']);
  });

  it('refuses a bad expression saying why, a bad name, and a second job of the same name', async () => {
    const bad = await send(base, 'POST', { name: 'bad', expr: '61 * * * *' });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'expr: invalid cron expression "61 * * * *": Invalid value for minute: 61',
    });
    const never = await send(base, 'POST', { name: 'never', expr: '0 0 30 2 *' });
    expect(never.status).toBe(400);
    expect((never.json as { message: string }).message).toMatch(/never runs/);
    const name = await send(base, 'POST', { name: 'a/b', expr: '@daily' });
    expect(name.status).toBe(400);
    expect((name.json as { message: string }).message).toMatch(/^name: /);
    const missing = await send(base, 'POST', { name: 'x' });
    expect(missing.status).toBe(400);
    expect((missing.json as { message: string }).message).toMatch(/expr/);
    const again = await send(base, 'POST', { name: 'nightly', expr: '@hourly' });
    expect(again.status).toBe(409);
  });

  it('changes a job: a new expression moves its next run; a bad one changes nothing', async () => {
    const before = (await send(`${base}/often`)).json as CronAnswer;
    const changed = await send(`${base}/often`, 'PATCH', { expr: '@yearly', disabled: true, target: '' });
    expect(changed.status).toBe(200);
    const after = changed.json as CronAnswer;
    expect(after).toMatchObject({ expr: '@yearly', disabled: true, target: '', branch: 'dev' });
    expect(after.next).toBeGreaterThan(before.next);
    expect(after.version).toBe(before.version + 1);
    const bad = await send(`${base}/often`, 'PATCH', { expr: 'every day' });
    expect(bad.status).toBe(400);
    expect((await send(`${base}/often`)).json).toEqual(after);
    expect((await send(`${base}/nope`, 'PATCH', { disabled: true })).status).toBe(404);
  });

  it('runs a job now: the branch head as a cron build, the schedule unchanged', async () => {
    const before = (await send(`${base}/nightly`)).json as CronAnswer;
    const answer = await send(`${base}/nightly`, 'POST');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      event: 'cron',
      cron: 'nightly',
      trigger: '@cron',
      after: sha,
      ref: 'refs/heads/main',
      message: 'the nightly file',
      author_login: 'octocat',
      status: 'pending',
      stages: [expect.objectContaining({ name: 'nightly' })],
    });
    expect((await send(`${base}/nightly`)).json).toEqual(before);
  });

  it('does not run a disabled job, nor one no pipeline is for, and says why', async () => {
    const disabled = await send(`${base}/often`, 'POST');
    expect(disabled.status).toBe(400);
    expect((disabled.json as { message: string }).message).toBe(
      'cron job often is disabled; enable it first',
    );
    await send(base, 'POST', { name: 'weekly', expr: '@weekly' });
    const none = await send(`${base}/weekly`, 'POST');
    expect(none.status).toBe(400);
    expect((none.json as { message: string }).message).toMatch(
      /^no build was created: no pipeline's trigger/,
    );
  });

  it('deletes a job', async () => {
    expect((await send(`${base}/weekly`, 'DELETE')).status).toBe(204);
    expect((await send(`${base}/weekly`)).status).toBe(404);
    expect((await send(`${base}/weekly`, 'DELETE')).status).toBe(404);
  });
});
