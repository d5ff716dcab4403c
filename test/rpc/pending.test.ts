/*
 * Runners register as they poll (svc's `runner` in the stage filter), the queue's pause holds for
 * every server of one database and survives a restart, the repository throttle holds stages back,
 * and "why is this stage pending?" is computed from those real registrations.
 */
import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { PendingReasons } from '../../src/server/queue/pending-reasons.js';
import { json, queueBuild } from './support/harness.js';
import { useServers } from './support/fresh.js';

const FILTER = { kind: 'pipeline', type: 'docker', os: 'linux', arch: 'amd64', labels: {} };

/** The filter of an svc runner that says who it is. */
function runnerFilter(name: string, more: { labels?: Record<string, string>; capacity?: number } = {}) {
  return {
    ...FILTER,
    labels: more.labels ?? {},
    runner: { name, kind: 'docker', capacity: more.capacity ?? 1, max_procs: 0, version: '1.0.0' },
  };
}

const until = async (check: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 100 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
};

describe('runner registration and pending reasons', () => {
  const server = useServers();

  it('registers an svc runner when it polls, and not an anonymous (Drone) one', async () => {
    const s = await server({ longPoll: 100 });
    expect((await s.call('POST', '/rpc/v2/stage', FILTER)).status).toBe(204);
    const before = Date.now();
    const response = await s.call(
      'POST',
      '/rpc/v2/stage',
      runnerFilter('runner-eu', { labels: { region: 'eu' }, capacity: 3 }),
    );
    expect(response.status).toBe(204);
    await until(async () => (await s.store.runners.list()).length > 0);
    const runners = await s.store.runners.list();
    expect(runners).toHaveLength(1);
    expect(runners[0]).toMatchObject({
      name: 'runner-eu',
      kind: 'docker',
      type: 'docker',
      labels: { region: 'eu' },
      capacity: 3,
      os: 'linux',
      arch: 'amd64',
      version: '1.0.0',
    });
    expect(runners[0]?.lastSeen).toBeGreaterThanOrEqual(before);
  });

  it('refuses a filter whose runner is malformed, naming the field', async () => {
    const s = await server({ longPoll: 100 });
    const bad = { ...FILTER, runner: { name: '', kind: 'toaster', capacity: -1, max_procs: 0 } };
    const response = await s.call('POST', '/rpc/v2/stage', bad);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('runner');
  });

  it('tells why stages wait, from the runners that polled', async () => {
    const s = await server({ longPoll: 100 });
    const reasons = new PendingReasons({ store: s.store });
    const { stages } = await queueBuild(s.store, [
      { name: 'eu', labels: { region: 'eu' } },
      { name: 'arm', arch: 'arm64' },
      { name: 'after', dependsOn: ['eu'] },
    ]);
    const [eu, arm, after] = stages;
    if (eu === undefined || arm === undefined || after === undefined) throw new Error('no stages');

    // A runner of other labels polls: it gets nothing, and is the nearest runner.
    expect(
      (await s.call('POST', '/rpc/v2/stage', runnerFilter('runner-us', { labels: { region: 'us' } }))).status,
    ).toBe(204);
    await until(async () => (await s.store.runners.list()).length === 1);
    let why = await reasons.stages(stages);
    expect(why.get(eu.id)?.code).toBe('labels_mismatch');
    expect(why.get(eu.id)?.message).toContain('"runner-us"');
    expect(why.get(eu.id)?.message).toContain('its label region is us, the stage asks for eu');
    expect(why.get(arm.id)?.code).toBe('no_runner');
    expect(why.get(arm.id)?.message).toContain('linux/arm64');
    expect(why.get(after.id)).toEqual({
      code: 'waiting_on_dependencies',
      message: 'waiting for 1 stage it depends on to finish: eu',
    });

    // The matching runner takes the eu stage (capacity 1): a second eu stage waits for it.
    const taken = await json<WireStage>(
      await s.call('POST', '/rpc/v2/stage', runnerFilter('runner-eu', { labels: { region: 'eu' } })),
    );
    expect(taken.id).toBe(eu.id);
    await json(await s.call('POST', `/rpc/v2/stage/${eu.id}?machine=runner-eu`));
    const second = await queueBuild(s.store, [{ name: 'eu', labels: { region: 'eu' } }]);
    await until(async () => (await s.store.runners.list()).length === 2);
    why = await reasons.stages([...stages, ...second.stages]);
    expect(why.get(eu.id)).toEqual({
      code: 'accepted',
      message: 'runner "runner-eu" took the stage and is starting it',
    });
    expect(why.get(second.stages[0]?.id ?? 0)).toEqual({
      code: 'runners_busy',
      message: 'the only matching runner is busy (runner-eu 1/1 stages)',
    });
  });

  it('pauses the queue for every server of the database, across a restart, and serves waiting runners on resume', async () => {
    const first = await server({ longPoll: 3_000, recheck: 100 });
    const second = await server({ store: first.store, longPoll: 3_000, recheck: 100 });
    await first.queue.pause();
    const { stages } = await queueBuild(first.store, [{ name: 'build' }]);
    second.queue.wake();
    const polling = second.call('POST', '/rpc/v2/stage', runnerFilter('runner-a'));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(second.queue.waiting).toBe(1);
    const why = await new PendingReasons({ store: first.store }).stages(stages);
    expect(why.get(stages[0]?.id ?? 0)?.code).toBe('queue_paused');

    // A server started later over the same database is paused too.
    const restarted = await server({ store: first.store, longPoll: 200, recheck: 100 });
    expect(await restarted.queue.pausedSince()).toBeGreaterThan(0);
    expect((await restarted.call('POST', '/rpc/v2/stage', FILTER)).status).toBe(204);

    // Resumed on the first server: the second one's waiting runner gets the stage at its next re-check.
    await first.queue.resume();
    expect((await json<WireStage>(await polling)).id).toBe(stages[0]?.id);
  });

  it('holds stages that would start a build beyond the repository throttle, and says so', async () => {
    const s = await server({ longPoll: 200 });
    const one = await queueBuild(s.store, [{ name: 'a' }, { name: 'b' }], { repo: { throttle: 1 } });
    const two = await queueBuild(s.store, [{ name: 'a' }], { existingRepo: one.repo });
    const [a, b] = one.stages;
    const got = await json<WireStage>(
      await s.call('POST', '/rpc/v2/stage', runnerFilter('runner-a', { capacity: 4 })),
    );
    expect(got.id).toBe(a?.id);
    await json(await s.call('POST', `/rpc/v2/stage/${got.id}?machine=runner-a`));
    // The same build's second stage goes on; the second build waits.
    const next = await json<WireStage>(
      await s.call('POST', '/rpc/v2/stage', runnerFilter('runner-a', { capacity: 4 })),
    );
    expect(next.id).toBe(b?.id);
    await json(await s.call('POST', `/rpc/v2/stage/${next.id}?machine=runner-a`));
    expect((await s.call('POST', '/rpc/v2/stage', runnerFilter('runner-a', { capacity: 4 }))).status).toBe(
      204,
    );
    const why = await new PendingReasons({ store: s.store }).stages(two.stages);
    expect(why.get(two.stages[0]?.id ?? 0)).toEqual({
      code: 'repository_throttle',
      message: `repository ${one.repo.slug} already runs 1 build; its throttle is 1`,
    });
  });
});
