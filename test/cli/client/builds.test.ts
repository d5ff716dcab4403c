import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RPC_SECRET, startHarness, type Harness } from '../../api/harness.js';
import { enable, loginAs, tokenOf } from '../../api/client.js';
import { LINT_AND_UNIT, runStage } from '../../api/runner-flow.js';
import { clientFor, jsonOf, type Svc } from './run.js';

const FILE = LINT_AND_UNIT;

interface Build {
  number: number;
  status: string;
  event: string;
  deploy_to?: string;
  params?: Record<string, string>;
  stages: { number: number; name: string; status: string }[];
}

describe('svc build … against a real server', () => {
  let h: Harness;
  let svc: Svc;
  let repoId = 0;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
    h.github.commit('octocat/app', 'main', { '.drone.yml': FILE }, 'first');
    const session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    svc = clientFor(h, await tokenOf(h, session));
    repoId = (await h.store.repos.findSlug('octocat', 'app'))?.id ?? 0;
  });
  afterAll(() => h.close());

  const stored = async (number: number) => {
    const build = await h.store.builds.findNumber(repoId, number);
    if (build === undefined) throw new Error(`no build ${number}`);
    return build;
  };

  it('creates a build with parameters, lists it as a table and as JSON, and shows why its stages wait', async () => {
    const created = jsonOf<Build>(
      await svc('build', 'create', 'octocat/app', '-p', 'TARGET=prod', '--format', 'json'),
    );
    expect(created).toMatchObject({ event: 'custom', status: 'pending', params: { TARGET: 'prod' } });
    const table = await svc('build', 'ls', 'octocat/app');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(
      /^NUMBER\s+STATUS\s+EVENT\s+REF\s+COMMIT\s+CREATED\s+MESSAGE$/,
    );
    expect(table.stdout).toMatch(
      new RegExp(`^${created.number}\\s+pending\\s+custom\\s+refs/heads/main`, 'm'),
    );
    expect(
      jsonOf<Build[]>(await svc('build', 'ls', 'octocat/app', '--format', 'json', '--event', 'push')),
    ).toEqual([]);
    const info = await svc('build', 'info', 'octocat/app', String(created.number));
    expect(info.stdout).toContain('Status:   pending');
    // No runner polled this server: the stage says so, in words and as a code.
    expect(info.stdout).toMatch(/1\s+lint\s+pending\s+.*\(no_runner\)/);
    const last = jsonOf<Build>(await svc('build', 'last', 'octocat/app', '--format', 'json'));
    expect(last.number).toBe(created.number);
  });

  it('restarts only the failed stage, cancels, promotes and rolls back', async () => {
    const build = await stored(1);
    await runStage(h, build, 'success', 1);
    await runStage(h, build, 'failure', 2);
    const rerun = jsonOf<Build>(
      await svc('build', 'restart', 'octocat/app', '1', '--failed', '--format', 'json'),
    );
    expect(rerun.stages.map((s) => [s.name, s.status])).toEqual([
      ['lint', 'success'],
      ['unit', 'pending'],
    ]);
    const cancelled = jsonOf<Build>(
      await svc('build', 'cancel', 'octocat/app', String(rerun.number), '--format', 'json'),
    );
    expect(cancelled.status).toBe('killed');
    const promoted = jsonOf<Build>(
      await svc('build', 'promote', 'octocat/app', '1', 'production', '-p', 'VERSION=2', '--format', 'json'),
    );
    expect(promoted).toMatchObject({
      event: 'promote',
      deploy_to: 'production',
      params: { TARGET: 'prod', VERSION: '2' },
    });
    const rolled = await svc('build', 'rollback', 'octocat/app', '1', 'production');
    expect(rolled.stdout).toMatch(/Event:\s+rollback/);
    expect(rolled.stdout).toMatch(/Target:\s+production/);
  });

  it('approves every blocked stage, or declines the build', async () => {
    const repo = await h.store.repos.findSlug('octocat', 'app');
    await h.store.repos.update({ ...repo!, approval: 'all' });
    const blocked = jsonOf<Build>(await svc('build', 'create', 'octocat/app', '--format', 'json'));
    expect(blocked.status).toBe('blocked');
    const info = await svc('build', 'info', 'octocat/app', String(blocked.number));
    expect(info.stdout).toContain('(waiting_for_approval)');
    const approved = jsonOf<Build>(
      await svc('build', 'approve', 'octocat/app', String(blocked.number), '--format', 'json'),
    );
    expect(approved.stages.map((s) => s.status)).toEqual(['pending', 'pending']);
    const again = await svc('build', 'approve', 'octocat/app', String(blocked.number));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('has no stage waiting for approval');
    const other = jsonOf<Build>(await svc('build', 'create', 'octocat/app', '--format', 'json'));
    const declined = jsonOf<Build>(
      await svc('build', 'decline', 'octocat/app', String(other.number), '--format', 'json'),
    );
    expect(declined.status).toBe('declined');
    await h.store.repos.update({ ...(await h.store.repos.findSlug('octocat', 'app'))!, approval: 'forks' });
  });

  it('prints stored logs, and follows a running step live until the build ends', async () => {
    const build = jsonOf<Build>(await svc('build', 'create', 'octocat/app', '--format', 'json'));
    const rpc = (method: string, path: string, body?: unknown) =>
      fetch(`${h.url}${path}`, {
        method,
        headers: { 'x-svc-token': RPC_SECRET, 'content-type': 'application/json' },
        body: body === undefined ? null : JSON.stringify(body),
      });
    const stages = await h.store.stages.list((await stored(build.number)).id);
    for (const stage of stages) {
      const accepted = (await (
        await rpc('POST', `/rpc/v2/stage/${stage.id}?machine=runner-1`)
      ).json()) as Record<string, unknown>;
      const running = (await (
        await rpc('PUT', `/rpc/v2/stage/${stage.id}`, {
          ...accepted,
          status: 'running',
          started: Math.floor(Date.now() / 1000),
          steps: [{ id: 0, number: 1, name: 'test', status: 'running', image: 'alpine', version: 0 }],
        })
      ).json()) as { steps: { id: number }[] } & Record<string, unknown>;
      Object.assign(stage, { running });
    }
    const following = svc('build', 'logs', 'octocat/app', String(build.number), '--follow');
    const finishStage = async (index: number, text: string) => {
      const running = (
        stages[index] as unknown as { running: { steps: { id: number }[] } & Record<string, unknown> }
      ).running;
      const stepId = running.steps[0]?.id ?? 0;
      // The client is following: these lines reach it live, then the upload ends the step's log.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        (
          await rpc('POST', `/rpc/v2/step/${stepId}/logs/batch`, {
            batch: 0,
            lines: [{ pos: 0, out: `${text}\n`, time: 0 }],
          })
        ).status,
      ).toBe(200);
      expect(
        (await rpc('POST', `/rpc/v2/step/${stepId}/logs/upload`, { batches: 1, lines: [] })).status,
      ).toBe(204);
      const now = Math.floor(Date.now() / 1000);
      const steps = running.steps.map((step) => ({ ...step, status: 'success', exit_code: 0, stopped: now }));
      expect(
        (
          await rpc('PUT', `/rpc/v2/stage/${stages[index]?.id}`, {
            ...running,
            steps,
            status: 'success',
            stopped: now,
          })
        ).status,
      ).toBe(200);
    };
    await finishStage(0, 'lint says hello');
    await finishStage(1, 'unit says hello');
    const followed = await following;
    expect(followed.code).toBe(0);
    expect(followed.stdout).toBe('lint says hello\nunit says hello\n');
    expect(followed.stderr).toContain('[lint:test]');
    expect(followed.stderr).toContain('[unit:test]');
    const stored1 = await svc('build', 'logs', 'octocat/app', String(build.number), '2', '1');
    expect(stored1.stdout).toBe('unit says hello\n');
  });

  it('says what is wrong: the server’s message (exit 1), wrong usage (exit 2)', async () => {
    const missing = await svc('build', 'info', 'octocat/app', '999');
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^svc: .*build 999/);
    expect((await svc('build', 'info', 'octocat/app')).code).toBe(2);
    expect((await svc('build', 'info', 'octocat', '1')).stderr).toContain('expected owner/name');
    expect((await svc('build', 'frobnicate')).stderr).toContain('expected one of: ls, info, last');
    expect((await svc('build', 'ls', 'octocat/app', '--nope')).code).toBe(2);
    expect((await svc('build', 'ls', 'octocat/app', '--format', 'yaml')).stderr).toContain('--format');
    expect((await svc('build', 'promote', 'octocat/app', '1')).stderr).toContain('missing the target');
    const help = await svc('build', '--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('restart <owner/name> <number>');
    expect((await svc('build', 'restart', '--help')).stdout).toContain('--failed');
  });
});
