import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { Repo } from '../../src/core/repo.js';
import { ApprovalSweeper } from '../../src/server/queue/approval-sweeper.js';
import { secretsForBuild } from '../../src/server/rpc/secrets.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const PIPELINES = `kind: pipeline
type: docker
name: build
steps:
- name: compile
  image: busybox
  commands: [true]
---
kind: pipeline
type: docker
name: deploy
trigger:
  event: [promote]
steps:
- name: ship
  image: busybox
  commands: [true]
---
kind: pipeline
type: docker
name: stage
environment: staging
trigger:
  event: [push]
steps:
- name: ship
  image: busybox
  commands: [true]
`;

interface StageJson {
  number: number;
  name: string;
  status: string;
  deployment?: { environment: string; approvals_required: number; approved: boolean; deadline: number };
}
interface BuildJson {
  number: number;
  status: string;
  error: string;
  stages: StageJson[];
}
interface ApprovalJson {
  stage: number;
  login: string;
  decision: string;
  comment: string;
}

describe('deployment environments: settings, approvals by distinct approvers, branches, declines, timeouts, secrets', () => {
  let h: Harness;
  const tokens: Record<string, string> = {};
  let repo: Repo;
  let pushes = 0;

  const api = (path: string, login: string, options: { method?: string; body?: unknown } = {}) =>
    call(h, `/api/repos/acme/app${path}`, { ...options, token: tokens[login] });

  async function push(branch = 'main'): Promise<number> {
    pushes++;
    h.github.commit(
      'acme/app',
      branch,
      { '.drone.yml': PIPELINES, 'n.txt': String(pushes) },
      `commit ${pushes}`,
    );
    expect(await h.github.push('acme/app', branch, `${h.url}/hook`)).toBe(200);
    return (await h.store.repos.find(repo.id))?.counter ?? 0;
  }

  async function promote(number: number): Promise<BuildJson> {
    const promoted = await api(`/builds/${number}/promote?target=production`, 'boss', { method: 'POST' });
    expect(promoted.status).toBe(200);
    const created = promoted.json as { number: number };
    return (await api(`/builds/${created.number}`, 'viewer')).json as BuildJson;
  }

  const approvals = async (number: number) =>
    ((await api(`/builds/${number}/approvals`, 'viewer')).json as ApprovalJson[]).map(
      ({ stage, login, decision, comment }) => ({ stage, login, decision, comment }),
    );

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'boss', orgs: ['acme'] });
    for (const login of ['dev', 'qa', 'ops', 'viewer']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'acme',
      name: 'app',
      private: true,
      admins: ['boss'],
      writers: ['dev', 'qa', 'ops'],
      readers: ['viewer'],
    });
    h.github.addTeam('acme', 'release', ['ops']);
    const session = await loginAs(h, 'boss');
    tokens.boss = await tokenOf(h, session);
    for (const login of ['dev', 'qa', 'ops', 'viewer'])
      tokens[login] = await tokenOf(h, await loginAs(h, login));
    await enable(h, session, 'acme/app');
    repo = (await h.store.repos.findSlug('acme', 'app')) as Repo;
  });
  afterAll(() => h.close());

  it('defines environments: admins only, approvers by login and provider team, names that resolve', async () => {
    const production = {
      name: 'production',
      approvers: { users: ['boss', 'dev'], teams: ['acme/release'] },
      required_approvals: 2,
      branches: ['main', 'release/*'],
      timeout: 60,
    };
    expect((await api('/environments', 'dev', { method: 'POST', body: production })).status).toBe(403);
    const ghost = await api('/environments', 'boss', {
      method: 'POST',
      body: { ...production, approvers: { users: ['ghost'] } },
    });
    expect(ghost.status).toBe(400);
    expect(ghost.text).toContain('no active svc account named ghost');
    const noTeam = await api('/environments', 'boss', {
      method: 'POST',
      body: { ...production, approvers: { teams: ['acme/nobody'] } },
    });
    expect(noTeam.status).toBe(400);
    expect(noTeam.text).toContain('acme/nobody is not a team you can see');
    const unreachable = await api('/environments', 'boss', {
      method: 'POST',
      body: { ...production, approvers: { users: ['dev'] } },
    });
    expect(unreachable.status).toBe(400);
    expect(unreachable.text).toContain('only 1 approvers are named');
    const badName = await api('/environments', 'boss', { method: 'POST', body: { name: '../prod' } });
    expect(badName.status).toBe(400);
    expect(badName.text).toContain('name');
    const created = await api('/environments', 'boss', { method: 'POST', body: production });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      name: 'production',
      approvers: { users: ['boss', 'dev'], teams: ['acme/release'] },
      required_approvals: 2,
      branches: ['main', 'release/*'],
      timeout: 60,
    });
    expect((await api('/environments', 'boss', { method: 'POST', body: production })).status).toBe(409);
    const listed = await api('/environments', 'viewer');
    expect((listed.json as { name: string }[]).map((e) => e.name)).toEqual(['production']);
    const patched = await api('/environments/production', 'boss', { method: 'PATCH', body: { timeout: 90 } });
    expect(patched.json).toMatchObject({ timeout: 90, required_approvals: 2 });
    const renamed = await api('/environments/production', 'boss', {
      method: 'PATCH',
      body: { name: 'prod' },
    });
    expect(renamed.status).toBe(400);
    expect(renamed.text).toContain('cannot be renamed');
    expect((await api('/environments/production', 'dev', { method: 'DELETE' })).status).toBe(403);
    expect((await api('/environments/nowhere', 'viewer')).status).toBe(404);
  });

  it('holds a promotion to production until two different approvers approved it, and records who, when and why', async () => {
    const promoted = await promote(await push());
    expect(promoted.status).toBe('blocked');
    expect(promoted.stages.map((s) => [s.name, s.status, s.deployment?.environment])).toEqual([
      ['build', 'blocked', 'production'],
      ['deploy', 'blocked', 'production'],
    ]);
    expect(promoted.stages[0]?.deployment).toMatchObject({ approvals_required: 2, approved: false });
    const path = `/builds/${promoted.number}/approve/2`;
    const outsider = await api(path, 'qa', { method: 'POST' });
    expect(outsider.status).toBe(403);
    expect(outsider.text).toContain('only its approvers may');
    expect((await api(path, 'viewer', { method: 'POST' })).status).toBe(403);
    const first = await api(path, 'boss', { method: 'POST', body: { comment: 'release notes checked' } });
    expect(first.status).toBe(200);
    expect((first.json as BuildJson).status).toBe('blocked');
    // The person who promoted it cannot make up the second approval.
    const again = await api(`/builds/${promoted.number}/approve/1`, 'boss', { method: 'POST' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('1 of 2 given');
    // ops is an approver through the acme/release team.
    const second = await api(path, 'ops', { method: 'POST', body: { comment: 'go' } });
    expect(second.status).toBe(200);
    const released = second.json as BuildJson;
    expect(released.status).toBe('pending');
    expect(released.stages.map((s) => [s.status, s.deployment?.approved])).toEqual([
      ['pending', true],
      ['pending', true],
    ]);
    expect(await approvals(promoted.number)).toEqual([
      { stage: 2, login: 'boss', decision: 'approve', comment: 'release notes checked' },
      { stage: 2, login: 'ops', decision: 'approve', comment: 'go' },
    ]);
  });

  it('releases a deployment once when its two approvals come at the same moment', async () => {
    const promoted = await promote(await push());
    const path = `/builds/${promoted.number}/approve/1`;
    const answers = await Promise.all([
      api(path, 'dev', { method: 'POST' }),
      api(path, 'ops', { method: 'POST' }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    const build = (await api(`/builds/${promoted.number}`, 'viewer')).json as BuildJson;
    expect(build.stages.map((s) => s.status)).toEqual(['pending', 'pending']);
    expect((await approvals(promoted.number)).map((a) => a.login).sort()).toEqual(['dev', 'ops']);
  });

  it('gives an environment’s secret only to the stages deploying there once approved', async () => {
    const added = await api('/secrets', 'boss', {
      method: 'POST',
      body: { name: 'DEPLOY_KEY', data: 'k3y', environment: 'production' },
    });
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ name: 'DEPLOY_KEY', environment: 'production' });
    await api('/secrets', 'boss', { method: 'POST', body: { name: 'PLAIN', data: 'p' } });
    const promoted = await promote(await push());
    const build = await h.store.builds.findNumber(repo.id, promoted.number);
    if (build === undefined) throw new Error('no build');
    const names = async () => {
      const [stage] = await h.store.stages.list(build.id);
      return (await secretsForBuild(h.store.secrets, repo, build, stage)).map((s) => s.name).sort();
    };
    expect(await names()).toEqual(['PLAIN']);
    await api(`/builds/${promoted.number}/approve/1`, 'dev', { method: 'POST' });
    await api(`/builds/${promoted.number}/approve/1`, 'ops', { method: 'POST' });
    expect(await names()).toEqual(['DEPLOY_KEY', 'PLAIN']);
    const pushed = await h.store.builds.findNumber(repo.id, await push());
    const [plain] = await h.store.stages.list(pushed?.id ?? 0);
    expect((await secretsForBuild(h.store.secrets, repo, pushed ?? build, plain)).map((s) => s.name)).toEqual(
      ['PLAIN'],
    );
  });

  it('refuses a promotion from a branch the environment does not take, naming the rule', async () => {
    const promoted = await promote(await push('feature/x'));
    expect(promoted.status).toBe('error');
    expect(promoted.error).toContain(
      'pipeline "build" may not deploy to production from branch feature/x: production takes only main, release/*',
    );
  });

  it('ends a declined deployment, keeping the comment', async () => {
    const promoted = await promote(await push());
    const declined = await api(`/builds/${promoted.number}/decline/1`, 'dev', {
      method: 'POST',
      body: { comment: 'not during the freeze' },
    });
    expect(declined.status).toBe(200);
    expect((declined.json as BuildJson).status).toBe('declined');
    expect(await approvals(promoted.number)).toEqual([
      { stage: 1, login: 'dev', decision: 'decline', comment: 'not during the freeze' },
    ]);
  });

  it('declines a deployment nobody approved before the environment’s timeout', async () => {
    const promoted = await promote(await push());
    const logger = pino({ level: 'silent' });
    const early = new ApprovalSweeper({ store: h.store, desk: h.approvalDesk, logger });
    expect(await early.pass()).toBe(0);
    const late = new ApprovalSweeper({
      store: h.store,
      desk: h.approvalDesk,
      logger,
      now: () => Date.now() + 91 * 60_000,
    });
    expect(await late.pass()).toBeGreaterThanOrEqual(1);
    const build = (await api(`/builds/${promoted.number}`, 'viewer')).json as BuildJson;
    expect(build.status).toBe('declined');
    expect(await approvals(promoted.number)).toContainEqual({
      stage: 1,
      login: '',
      decision: 'timeout',
      comment: 'no approval for production before its timeout',
    });
  });

  it('runs a pipeline that names an environment the repository does not define at once, as deploying there', async () => {
    const number = await push();
    const build = (await api(`/builds/${number}`, 'viewer')).json as BuildJson;
    expect(build.status).toBe('pending');
    expect(build.stages.find((s) => s.name === 'stage')).toMatchObject({
      status: 'pending',
      deployment: { environment: 'staging', approvals_required: 0, approved: true, deadline: 0 },
    });
  });
});
