import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Repo } from '../../src/core/repo.js';
import { runnerRegistration } from '../../src/store/cases/fixtures.case.js';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';

const PIPELINES = `kind: pipeline
type: docker
name: build
node:
  region: eu
steps:
- name: compile
  image: golang
  commands: [go build]
---
kind: pipeline
type: docker
name: test
depends_on: [build]
steps:
- name: unit
  image: golang
  commands: [go test]
`;

interface StageJson {
  id: number;
  name: string;
  status: string;
  machine?: string;
  pending_reason?: { code: string; message: string };
}

describe('queue, runners, incomplete builds and statistics API', () => {
  let h: Harness;
  let admin: BrowserSession;
  let member: BrowserSession;
  let repo: Repo;
  let build: Build;
  const as = (session: BrowserSession, method: string, path: string) =>
    call(h, path, { method, session, csrf: session.csrf });

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['octocat', 'member']) h.github.addUser({ login });
    h.github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], readers: ['member'] });
    admin = await loginAs(h, 'octocat');
    member = await loginAs(h, 'member');
    const octocat = await h.store.users.findLogin('octocat');
    if (octocat === undefined) throw new Error('no octocat');
    await h.store.users.update({ ...octocat, admin: true });
    await enable(h, admin, 'octocat/app');
    h.github.commit('octocat/app', 'main', { '.drone.yml': PIPELINES }, 'first');
    expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    repo = (await h.store.repos.findSlug('octocat', 'app')) as Repo;
    build = (await h.store.builds.findNumber(repo.id, 1)) as Build;
    // A runner of the right platform but other labels has just polled.
    await h.store.runners.register(
      runnerRegistration({ name: 'runner-us', labels: { region: 'us' }, lastSeen: Date.now() }),
    );
  });
  afterAll(() => h.close());

  it('is for svc administrators only', async () => {
    for (const [method, path] of [
      ['GET', '/api/queue'],
      ['DELETE', '/api/queue'],
      ['POST', '/api/queue'],
      ['GET', '/api/runners'],
      ['GET', '/api/builds/incomplete'],
      ['GET', '/api/system/stats'],
    ] as const) {
      expect((await as(member, method, path)).status, `${method} ${path}`).toBe(403);
      expect((await call(h, path, { method })).status, `${method} ${path}`).toBe(401);
    }
    expect(await h.store.queue.pausedSince()).toBe(0);
  });

  it('says in the build why each waiting stage waits', async () => {
    const answer = await call(h, `/api/repos/octocat/app/builds/${build.number}`, { session: member });
    expect(answer.status, answer.text).toBe(200);
    const stages = (answer.json as { stages: StageJson[] }).stages;
    expect(stages.map((s) => [s.name, s.status, s.pending_reason?.code])).toEqual([
      ['build', 'pending', 'labels_mismatch'],
      ['test', 'waiting_on_dependencies', 'waiting_on_dependencies'],
    ]);
    expect(stages[0]?.pending_reason?.message).toContain('the nearest, "runner-us", has region=us');
    expect(stages[1]?.pending_reason?.message).toBe('waiting for 1 stage it depends on to finish: build');
  });

  it('lists the incomplete stages with their reasons, pauses and resumes the queue', async () => {
    const listed = await as(admin, 'GET', '/api/queue');
    expect(listed.status, listed.text).toBe(200);
    const items = listed.json as StageJson[];
    expect(items.map((s) => [s.name, s.pending_reason?.code])).toEqual([['build', 'labels_mismatch']]);

    expect((await as(admin, 'DELETE', '/api/queue')).status).toBe(204);
    expect(await h.store.queue.pausedSince()).toBeGreaterThan(0);
    const paused = (await as(admin, 'GET', '/api/queue')).json as StageJson[];
    expect(paused[0]?.pending_reason?.code).toBe('queue_paused');
    const found = await call(h, `/api/repos/octocat/app/builds/${build.number}`, { session: admin });
    expect((found.json as { stages: StageJson[] }).stages[0]?.pending_reason?.code).toBe('queue_paused');
    expect(((await as(admin, 'GET', '/api/system/stats')).json as { queue: unknown }).queue).toEqual({
      paused: true,
    });

    expect((await as(admin, 'POST', '/api/queue')).status).toBe(204);
    expect(await h.store.queue.pausedSince()).toBe(0);
  });

  it('lists the runners with their last contact and the stages they run', async () => {
    const [stage] = await h.store.stages.list(build.id);
    if (stage === undefined) throw new Error('no stage');
    const eu = await h.store.runners.register(
      runnerRegistration({
        name: 'runner-eu',
        labels: { region: 'eu' },
        capacity: 1,
        lastSeen: 1_700_000_000_000,
      }),
    );
    await h.store.stages.update({ ...stage, machine: eu.name });
    const answer = await as(admin, 'GET', '/api/runners');
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toEqual([
      expect.objectContaining({
        name: 'runner-eu',
        kind: 'docker',
        type: 'docker',
        labels: { region: 'eu' },
        os: 'linux',
        arch: 'amd64',
        capacity: 1,
        last_contact: 1_700_000_000,
        stages_running: 1,
      }),
      expect.objectContaining({ name: 'runner-us', stages_running: 0 }),
    ]);
    const queue = (await as(admin, 'GET', '/api/queue')).json as StageJson[];
    expect(queue[0]?.pending_reason).toEqual({
      code: 'accepted',
      message: 'runner "runner-eu" took the stage and is starting it',
    });
  });

  it('adds each incomplete build’s stages with their runner and reasons on ?stages=true', async () => {
    // The previous test gave the first stage to runner-eu; the second waits on it.
    const answer = await as(admin, 'GET', '/api/builds/incomplete?stages=true');
    expect(answer.status, answer.text).toBe(200);
    const [entry] = answer.json as { slug: string; build: { number: number; stages: StageJson[] } }[];
    expect(entry?.slug).toBe('octocat/app');
    expect(entry?.build.number).toBe(1);
    expect(entry?.build.stages.map((s) => [s.name, s.status, s.machine, s.pending_reason?.code])).toEqual([
      ['build', 'pending', 'runner-eu', 'accepted'],
      ['test', 'waiting_on_dependencies', '', 'waiting_on_dependencies'],
    ]);
    expect(entry?.build.stages[0]).not.toHaveProperty('steps');
    const plain = (await as(admin, 'GET', '/api/builds/incomplete')).json as { build: object }[];
    expect(plain[0]?.build).not.toHaveProperty('stages');
    expect((await as(member, 'GET', '/api/builds/incomplete?stages=true')).status).toBe(403);
  });

  it('lists the incomplete builds with their repositories, and counts users, repositories and builds', async () => {
    const incomplete = await as(admin, 'GET', '/api/builds/incomplete');
    expect(incomplete.status, incomplete.text).toBe(200);
    expect(incomplete.json).toEqual([
      expect.objectContaining({
        slug: 'octocat/app',
        build: expect.objectContaining({ id: build.id, number: 1, status: 'pending' }) as unknown,
      }),
    ]);
    const stats = await as(admin, 'GET', '/api/system/stats');
    expect(stats.status, stats.text).toBe(200);
    expect(stats.json).toEqual({
      users: { total: 2 },
      repos: { active: 1 },
      builds: { pending: 1, running: 0, total: 1 },
      pipelines: [{ os: 'linux', arch: 'amd64', variant: '', kernel: '', pending: 1, running: 0 }],
      queue: { paused: false },
    });
  });
});
