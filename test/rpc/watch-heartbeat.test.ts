import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { json, queueBuild } from './support/harness.js';
import { claimingFilter, plannedStep, putStep, reportRunning, takeAndStart } from './support/flow.js';
import { useServers } from './support/fresh.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('rpc build watch (cancellation)', () => {
  const server = useServers();

  it('answers 204 after the long-poll time while the build runs', async () => {
    const s = await server({ timeouts: { watch: 300 } });
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'x')]);
    const started = performance.now();
    expect((await s.call('POST', `/rpc/v2/build/${build.id}/watch?stage=${stages[0]!.id}`)).status).toBe(204);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('returns at once when the build is cancelled and the watches are notified', async () => {
    const s = await server({ timeouts: { watch: 10_000 } });
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'x')]);
    const watching = s.call('POST', `/rpc/v2/build/${build.id}/watch`);
    await sleep(150);
    const stored = await s.store.builds.find(build.id);
    await s.store.builds.update({ ...stored!, status: 'killed' });
    const cancelled = performance.now();
    s.watches.notify(build.id);
    expect(await json(await watching)).toEqual({ done: true, status: 'killed' });
    expect(performance.now() - cancelled).toBeLessThan(100);
  });

  it('notices a cancel made without notification (another replica) at the next re-check', async () => {
    const s = await server({ timeouts: { watch: 10_000 } });
    const { build } = await queueBuild(s.store, [{ name: 'a' }]);
    const watching = s.call('POST', `/rpc/v2/build/${build.id}/watch`);
    await sleep(100);
    const stored = await s.store.builds.find(build.id);
    await s.store.builds.update({ ...stored!, status: 'killed' });
    expect(await json(await watching)).toEqual({ done: true, status: 'killed' });
  });

  it('answers 404 for an unknown build', async () => {
    const s = await server();
    expect((await s.call('POST', '/rpc/v2/build/999999/watch')).status).toBe(404);
  });
});

describe('rpc heartbeats and the watchdog', () => {
  const server = useServers();
  const FAST = { timeouts: { heartbeat: 600, watchdogInterval: 100 } };

  it('fails a stage whose runner went silent as error, naming the runner, with its build', async () => {
    const s = await server(FAST);
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }, { name: 'b', dependsOn: ['a'] }]);
    const running = await takeAndStart(
      s,
      stages[0]!.id,
      [plannedStep(1, 'x'), plannedStep(2, 'y')],
      'runner-gone',
    );
    await putStep(s, { ...running.steps[0]!, status: 'running', started: 1 });
    const stepId = running.steps[0]!.id;
    await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, {
      batch: 0,
      lines: [{ pos: 0, out: 'half way', time: 0 }],
    });
    const silentSince = Date.now();

    let stage = await s.store.stages.find(stages[0]!.id);
    while (stage?.status === 'running' && Date.now() - silentSince < 5_000) {
      await sleep(50);
      stage = await s.store.stages.find(stages[0]!.id);
    }
    const noticedAfter = Date.now() - silentSince;
    expect(stage?.status).toBe('error');
    expect(stage?.error).toMatch(
      /^runner "runner-gone" stopped sending heartbeats: no sign of life for \d+ s$/,
    );
    expect(noticedAfter).toBeGreaterThanOrEqual(600);
    expect(noticedAfter).toBeLessThan(1_500);
    expect((await s.store.steps.list(stages[0]!.id)).map((st) => [st.name, st.status])).toEqual([
      ['x', 'error'],
      ['y', 'skipped'],
    ]);
    expect(await s.store.logs.find(stepId)).toEqual([{ pos: 0, out: 'half way', time: 0 }]);
    // The watchdog settles the build right after it closed the stage's steps: wait for that write.
    let settled = await s.store.builds.find(build.id);
    for (let i = 0; i < 40 && settled?.status === 'running'; i++) {
      await sleep(50);
      settled = await s.store.builds.find(build.id);
    }
    expect(settled?.status).toBe('error');
    expect((await s.store.stages.list(build.id)).map((st) => st.status)).toEqual(['error', 'skipped']);
    expect(s.heard.at(-1)?.build.status).toBe('error');
    // The runner comes back: its heartbeat says the stage is no longer its to run.
    const late = await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}/heartbeat`);
    expect(late.status).toBe(409);
  });

  it('leaves alone a stage whose runner keeps sending heartbeats, and an accepted one while it beats', async () => {
    const s = await server(FAST);
    const { stages } = await queueBuild(s.store, [{ name: 'a' }, { name: 'b' }]);
    await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'x')]);
    await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${stages[1]!.id}?machine=runner-2`));
    for (let i = 0; i < 10; i++) {
      await sleep(150);
      for (const stage of stages) {
        expect((await s.call('POST', `/rpc/v2/stage/${stage.id}/heartbeat`)).status).toBe(204);
      }
    }
    expect((await s.store.stages.find(stages[0]!.id))?.status).toBe('running');
    expect(await s.store.stages.find(stages[1]!.id)).toMatchObject({
      status: 'pending',
      machine: 'runner-2',
    });
  });

  it('queues again a stage its runner claimed and never started; that runner’s late report is refused', async () => {
    const s = await server(FAST);
    const { build, stages } = await queueBuild(s.store, [{ name: 'a' }]);
    // The claim's answer is "lost": the runner never reports the stage, nor beats for it.
    const lost = await json<WireStage>(await s.call('POST', '/rpc/v2/stage', claimingFilter('runner-lost')));
    expect(lost).toMatchObject({ id: stages[0]!.id, machine: 'runner-lost' });
    const silentSince = Date.now();
    let stage = await s.store.stages.find(lost.id);
    while (stage?.machine !== '' && Date.now() - silentSince < 5_000) {
      await sleep(50);
      stage = await s.store.stages.find(lost.id);
    }
    expect(stage).toMatchObject({ status: 'pending', machine: '', version: lost.version + 1 });
    expect(Date.now() - silentSince).toBeGreaterThanOrEqual(600);
    expect((await s.store.builds.find(build.id))?.status).toBe('pending');
    // Another runner gets it, and runs it; the first one's late report is stale.
    const again = await json<WireStage>(await s.call('POST', '/rpc/v2/stage', claimingFilter('runner-2')));
    expect(again).toMatchObject({ id: lost.id, machine: 'runner-2', version: lost.version + 2 });
    const late = await s.call('PUT', `/rpc/v2/stage/${lost.id}`, { ...lost, status: 'running', steps: [] });
    expect(late.status).toBe(409);
    expect((await reportRunning(s, again)).status).toBe(200);
  });

  it('refuses a claim that names no runner', async () => {
    const s = await server();
    const response = await s.call('POST', '/rpc/v2/stage', {
      kind: 'pipeline',
      type: 'docker',
      claim: true,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('claim needs the runner that claims (runner.name)');
  });

  it('gives runners a whole timeout after a server (re)start before judging their silence', async () => {
    const before = await server(FAST);
    const { stages } = await queueBuild(before.store, [{ name: 'a' }]);
    await takeAndStart(before, stages[0]!.id, [plannedStep(1, 'x')]);
    await before.close();
    // The server was down for a minute: the last heartbeat it has is old.
    await before.store.queue.beat(stages[0]!.id, Date.now() - 60_000);
    const after = await server({ ...FAST, store: before.store });
    await sleep(400);
    expect((await after.store.stages.find(stages[0]!.id))?.status).toBe('running');
    expect((await after.call('POST', `/rpc/v2/stage/${stages[0]!.id}/heartbeat`)).status).toBe(204);
    await sleep(400);
    expect((await after.store.stages.find(stages[0]!.id))?.status).toBe('running');
    await sleep(900);
    expect((await after.store.stages.find(stages[0]!.id))?.status).toBe('error');
  });

  it('answers 409 to a heartbeat of a stage nobody took, 404 for an unknown stage', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'a' }]);
    expect((await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}/heartbeat`)).status).toBe(409);
    expect((await s.call('POST', '/rpc/v2/stage/999999/heartbeat')).status).toBe(404);
  });
});
