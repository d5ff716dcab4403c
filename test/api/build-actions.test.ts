import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repo } from '../../src/core/repo.js';
import type { Status } from '../../src/core/status.js';
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
name: test
depends_on: [build]
steps:
- name: unit
  image: busybox
  commands: [true]
`;

interface StageJson {
  number: number;
  status: string;
  error: string;
  steps?: { status: string }[];
}
interface BuildJson {
  number: number;
  status: string;
  stages: StageJson[];
}

describe('build actions: cancel, approve, decline, purge, branch filter, log deletion', () => {
  let h: Harness;
  let admin: string;
  let writer: string;
  let reader: string;
  let repo: Repo;
  let pushes = 0;

  /** Pushes a commit to `branch` and answers the new build's number. */
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

  /** Step 1 of a stage, named compile, with the given status and times. */
  const compileStep = (stageId: number, status: Status, started: number, stopped: number) =>
    h.store.steps.create({
      stageId,
      number: 1,
      name: 'compile',
      status,
      error: '',
      errIgnore: false,
      exitCode: 0,
      image: 'busybox',
      detached: false,
      dependsOn: [],
      started,
      stopped,
    });

  const build = async (number: number): Promise<BuildJson> =>
    (await call(h, `/api/repos/acme/app/builds/${number}`, { token: reader })).json as BuildJson;

  beforeAll(async () => {
    h = await startHarness();
    for (const login of ['boss', 'dev', 'viewer']) h.github.addUser({ login });
    h.github.addRepo({
      owner: 'acme',
      name: 'app',
      private: true,
      admins: ['boss'],
      writers: ['dev'],
      readers: ['viewer'],
    });
    const session = await loginAs(h, 'boss');
    admin = await tokenOf(h, session);
    writer = await tokenOf(h, await loginAs(h, 'dev'));
    reader = await tokenOf(h, await loginAs(h, 'viewer'));
    await enable(h, session, 'acme/app');
    repo = (await h.store.repos.findSlug('acme', 'app')) as Repo;
  });
  afterAll(() => h.close());

  it('cancels a pending build: never-started stages skipped, the build killed, the status posted', async () => {
    const number = await push();
    expect(
      (await call(h, `/api/repos/acme/app/builds/${number}`, { method: 'DELETE', token: reader })).status,
    ).toBe(403);
    const cancelled = await call(h, `/api/repos/acme/app/builds/${number}`, {
      method: 'DELETE',
      token: writer,
    });
    expect(cancelled.status).toBe(200);
    const json = cancelled.json as BuildJson;
    expect(json.status).toBe('killed');
    expect(json.stages.map((s) => s.status)).toEqual(['skipped', 'skipped']);
    const last = h.announced.at(-1);
    expect(last?.build.number).toBe(number);
    expect(last?.build.status).toBe('killed');
    const again = await call(h, `/api/repos/acme/app/builds/${number}`, { method: 'DELETE', token: writer });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({
      code: 'CONFLICT',
      message: `build ${number} is already killed: there is nothing to cancel`,
    });
  });

  it('cancels a running build: the running stage and its running step are killed', async () => {
    const number = await push();
    const stored = await h.store.builds.findNumber(repo.id, number);
    const [first] = await h.store.stages.list(stored?.id ?? 0);
    if (first === undefined) throw new Error('no stage');
    const running = await h.store.stages.update({
      ...first,
      status: 'running',
      machine: 'runner-1',
      started: Date.now(),
    });
    await compileStep(running.id, 'running', Date.now(), 0);
    const cancelled = await call(h, `/api/repos/acme/app/builds/${number}?`, {
      method: 'DELETE',
      token: admin,
    });
    expect(cancelled.status).toBe(200);
    const json = cancelled.json as BuildJson;
    expect(json.status).toBe('killed');
    expect(json.stages[0]).toMatchObject({ status: 'killed', error: 'cancelled by boss' });
    expect(json.stages[0]?.steps?.map((s) => s.status)).toEqual(['killed']);
    expect(json.stages[1]?.status).toBe('skipped');
  });

  it('holds builds of a protected repository for approval; approving queues the stage', async () => {
    const patched = await call(h, '/api/repos/acme/app', {
      method: 'PATCH',
      token: admin,
      body: { protected: true },
    });
    expect(patched.status).toBe(200);
    const number = await push();
    expect((await build(number)).status).toBe('blocked');
    const wakes = h.queue.wakes;
    expect(
      (await call(h, `/api/repos/acme/app/builds/${number}/approve/1`, { method: 'POST', token: reader }))
        .status,
    ).toBe(403);
    const approved = await call(h, `/api/repos/acme/app/builds/${number}/approve/1`, {
      method: 'POST',
      token: writer,
    });
    expect(approved.status).toBe(200);
    const json = approved.json as BuildJson;
    expect(json.status).toBe('pending');
    expect(json.stages.map((s) => s.status)).toEqual(['pending', 'blocked']);
    expect(h.queue.wakes).toBeGreaterThan(wakes);
    const second = await call(h, `/api/repos/acme/app/builds/${number}/approve/2`, {
      method: 'POST',
      token: writer,
    });
    expect((second.json as BuildJson).stages.map((s) => s.status)).toEqual([
      'pending',
      'waiting_on_dependencies',
    ]);
    const twice = await call(h, `/api/repos/acme/app/builds/${number}/approve/1`, {
      method: 'POST',
      token: writer,
    });
    expect(twice.status).toBe(400);
    expect(twice.json).toMatchObject({
      message: 'cannot approve stage 1: it is pending, not waiting for approval',
    });
    const missing = await call(h, `/api/repos/acme/app/builds/${number}/approve/9`, {
      method: 'POST',
      token: writer,
    });
    expect(missing.status).toBe(404);
  });

  it('declines a build waiting for approval: it ends declined and will not run', async () => {
    const number = await push();
    expect((await build(number)).status).toBe('blocked');
    const declined = await call(h, `/api/repos/acme/app/builds/${number}/decline/1`, {
      method: 'POST',
      token: writer,
    });
    expect(declined.status).toBe(200);
    const json = declined.json as BuildJson;
    expect(json.status).toBe('declined');
    expect(json.stages.map((s) => s.status)).toEqual(['declined', 'skipped']);
    expect(json.stages[0]?.error).toBe('declined by dev');
    expect(h.announced.at(-1)?.build.status).toBe('declined');
    await call(h, '/api/repos/acme/app', { method: 'PATCH', token: admin, body: { protected: false } });
  });

  it('accepts actions posted with an empty form body, as curl -X POST -d "" sends them', async () => {
    await call(h, '/api/repos/acme/app', { method: 'PATCH', token: admin, body: { protected: true } });
    const number = await push();
    const response = await fetch(`${h.url}/api/repos/acme/app/builds/${number}/approve/1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(response.status).toBe(200);
    await call(h, '/api/repos/acme/app', { method: 'PATCH', token: admin, body: { protected: false } });
    const bad = await fetch(`${h.url}/api/repos/acme/app`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: '{"protected": tru',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'INVALID_INPUT' });
    const wrongType = await call(h, '/api/repos/acme/app', {
      method: 'PATCH',
      token: admin,
      body: { timeout: 'long' },
    });
    expect(wrongType.status).toBe(400);
    expect((wrongType.json as { message: string }).message).toMatch(/^timeout: /);
  });

  it('lists the builds of one branch', async () => {
    const onDev = await push('dev');
    const answer = await call(h, '/api/repos/acme/app/builds?branch=dev', { token: reader });
    expect(answer.status).toBe(200);
    expect((answer.json as BuildJson[]).map((b) => b.number)).toEqual([onDev]);
  });

  it('deletes a step’s log (repository admins only)', async () => {
    const number = await push();
    const stored = await h.store.builds.findNumber(repo.id, number);
    const [first] = await h.store.stages.list(stored?.id ?? 0);
    const step = await compileStep(first?.id ?? 0, 'success', 1, 2);
    await h.store.logs.create(step.id, [{ pos: 0, out: 'oops, a secret\n', time: 0 }]);
    const path = `/api/repos/acme/app/builds/${number}/logs/1/1`;
    expect((await call(h, path, { method: 'DELETE', token: writer })).status).toBe(403);
    expect((await call(h, path, { method: 'DELETE', token: admin })).status).toBe(204);
    expect((await call(h, path, { token: reader })).status).toBe(404);
  });

  it('purges finished builds below a number (repository admins only)', async () => {
    const total = (await h.store.repos.find(repo.id))?.counter ?? 0;
    expect(
      (await call(h, '/api/repos/acme/app/builds?before=3', { method: 'DELETE', token: writer })).status,
    ).toBe(403);
    const missing = await call(h, '/api/repos/acme/app/builds', { method: 'DELETE', token: admin });
    expect(missing.status).toBe(400);
    expect((missing.json as { message: string }).message).toMatch(/^before: /);
    const purged = await call(h, '/api/repos/acme/app/builds?before=3', { method: 'DELETE', token: admin });
    expect(purged.status).toBe(200);
    expect(purged.json).toEqual({ deleted: 2 });
    const left = (await call(h, '/api/repos/acme/app/builds?per_page=100', { token: reader }))
      .json as BuildJson[];
    expect(left.map((b) => b.number)).not.toContain(1);
    expect(left.length).toBe(total - 2);
  });
});
