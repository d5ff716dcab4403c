import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import { call, enable, loginAs, tokenOf } from './client.js';
import { startHarness, type Harness } from './harness.js';

const PIPELINE = `kind: pipeline
type: docker
name: build
steps:
- name: compile
  image: busybox
  commands: [true]
`;

/** Repository settings as patched with Drone's names, and as the trigger honours them. */
describe('repository settings: approval policy, auto-cancel, throttle, counter', () => {
  let h: Harness;
  let owner: string;
  let root: string;
  let repo: Repo;
  let commits = 0;

  const patch = (body: Record<string, unknown>, token = owner) =>
    call(h, '/api/repos/acme/app', { method: 'PATCH', token, body });
  const statusOf = async (number: number) => (await h.store.builds.findNumber(repo.id, number))?.status;
  const counter = async () => (await h.store.repos.find(repo.id))?.counter ?? 0;

  async function push(branch = 'main'): Promise<number> {
    commits++;
    h.github.commit(
      'acme/app',
      branch,
      { '.drone.yml': PIPELINE, 'n.txt': String(commits) },
      `commit ${commits}`,
    );
    expect(await h.github.push('acme/app', branch, `${h.url}/hook`)).toBe(200);
    return counter();
  }

  async function pullRequest(fork: boolean): Promise<number> {
    commits++;
    const source = fork ? 'stranger/app' : 'acme/app';
    h.github.commit(
      source,
      'patch',
      { '.drone.yml': PIPELINE, 'n.txt': String(commits) },
      `patch ${commits}`,
    );
    const answer = await h.github.pullRequest('acme/app', 'patch', `${h.url}/hook`, {
      ...(fork ? { fork: source } : {}),
      title: 'Patch',
    });
    expect(answer.status).toBe(200);
    return counter();
  }

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['boss', 'root', 'stranger']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'acme', name: 'app', admins: ['boss'] });
    h.github.addRepo({ owner: 'stranger', name: 'app', admins: ['stranger'] });
    const session = await loginAs(h, 'boss');
    owner = await tokenOf(h, session);
    root = await tokenOf(h, await loginAs(h, 'root'));
    const rootUser = await h.store.users.findLogin('root');
    if (rootUser !== undefined) await h.store.users.update({ ...rootUser, admin: true });
    await enable(h, session, 'acme/app');
    repo = (await h.store.repos.findSlug('acme', 'app')) as Repo;
    h.github.commit('acme/app', 'main', { '.drone.yml': PIPELINE });
  });
  afterAll(() => h.close());

  it('shows Drone’s settings and svc’s approval policy, forks by default', async () => {
    const answer = await call(h, '/api/repos/acme/app', { token: owner });
    expect(answer.json).toMatchObject({
      auto_cancel_pull_requests: false,
      auto_cancel_pushes: false,
      auto_cancel_running: false,
      throttle: 0,
      approval: 'forks',
    });
    expect(answer.text).not.toContain('signing');
  });

  it('holds pull requests from forks for approval by default, and builds the others', async () => {
    expect(await statusOf(await pullRequest(true))).toBe('blocked');
    expect(await statusOf(await pullRequest(false))).toBe('pending');
    expect(await statusOf(await push())).toBe('pending');
  });

  it('applies each approval policy', async () => {
    expect((await patch({ approval: 'none' })).status).toBe(200);
    expect(await statusOf(await pullRequest(true))).toBe('pending');
    await patch({ approval: 'pull_requests' });
    expect(await statusOf(await pullRequest(false))).toBe('blocked');
    expect(await statusOf(await push())).toBe('pending');
    await patch({ approval: 'all' });
    expect(await statusOf(await push())).toBe('blocked');
    const bad = await patch({ approval: 'sometimes' });
    expect(bad.status).toBe(400);
    expect((bad.json as { message: string }).message).toMatch(/^approval: /);
    await patch({ approval: 'none' });
  });

  it('auto-cancels older pending pushes of the same branch, under either of Drone’s names', async () => {
    expect((await patch({ cancel_push: true })).json).toMatchObject({ auto_cancel_pushes: true });
    const older = await push();
    const other = await push('dev');
    const newer = await push();
    expect(await statusOf(older)).toBe('skipped');
    expect(await statusOf(other)).toBe('pending');
    expect(await statusOf(newer)).toBe('pending');
    const stages = await h.store.stages.list((await h.store.builds.findNumber(repo.id, older))?.id ?? 0);
    expect(stages.map((s) => s.status)).toEqual(['skipped']);
  });

  it('leaves running builds alone unless auto_cancel_running is set', async () => {
    const running = await push();
    const build = await h.store.builds.findNumber(repo.id, running);
    if (build === undefined) throw new Error('no build');
    await h.store.builds.update({ ...build, status: 'running' });
    await push();
    expect(await statusOf(running)).toBe('running');
    await patch({ auto_cancel_running: true });
    await push();
    expect(await statusOf(running)).toBe('skipped');
    await patch({ auto_cancel_pushes: false, cancel_running: false });
  });

  it('lets only svc administrators change throttle and counter; the counter never goes back', async () => {
    const refused = await patch({ throttle: 2, counter: 100 });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ message: 'only svc administrators may change throttle, counter' });
    expect((await patch({ throttle: 2 }, root)).json).toMatchObject({ throttle: 2 });
    const backwards = await patch({ counter: 1 }, root);
    expect(backwards.status).toBe(400);
    expect(backwards.json).toMatchObject({ message: `counter: build numbers above 1 are taken already` });
    expect((await patch({ counter: 100 }, root)).json).toMatchObject({ counter: 100 });
    expect(await push()).toBe(101);
  });
});
