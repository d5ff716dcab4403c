import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { SECRET, json, queueBuild, type TestServer } from './support/harness.js';
import { plannedStep, takeAndStart } from './support/flow.js';
import { useServers } from './support/fresh.js';

/** A request as svc's runner named `runner` sends it (X-SVC-Runner). */
function as(s: TestServer, runner: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${s.url}${path}`, {
    method,
    headers: {
      'X-SVC-Token': SECRET,
      'X-SVC-Runner': runner,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('rpc: a runner reads and writes only the stages it holds', () => {
  const server = useServers();

  it('refuses another named runner the details, reports, logs and heartbeats of a stage, with 409', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const stageId = stages[0]!.id;
    const running = await takeAndStart(s, stageId, [plannedStep(1, 'test')], 'holder');
    const step = running.steps[0]!;
    const batch = { batch: 0, lines: [{ pos: 0, out: 'hello\n', time: 1 }] };

    const refused = [
      await as(s, 'intruder', 'GET', `/rpc/v2/stage/${stageId}`),
      await as(s, 'intruder', 'PUT', `/rpc/v2/stage/${stageId}`, { ...running, status: 'success' }),
      await as(s, 'intruder', 'PUT', `/rpc/v2/step/${step.id}`, { ...step, status: 'running', started: 1 }),
      await as(s, 'intruder', 'POST', `/rpc/v2/step/${step.id}/logs/batch`, batch),
      await as(s, 'intruder', 'POST', `/rpc/v2/step/${step.id}/logs/upload`, batch.lines),
      await as(s, 'intruder', 'POST', `/rpc/v2/stage/${stageId}/heartbeat`),
    ];
    for (const answer of refused) {
      expect(answer.status).toBe(409);
      expect(((await answer.json()) as { message: string }).message).toBe(
        `stage ${stageId} is held by runner "holder", not "intruder"`,
      );
    }
    // Nothing of the intruder's was applied: no log line, the stage still running.
    expect(await s.store.logBatches.list(step.id)).toEqual([]);
    expect((await s.store.stages.find(stageId))?.status).toBe('running');

    // The holder itself, and a runner that names nobody (Drone's runners), are served.
    expect((await as(s, 'holder', 'GET', `/rpc/v2/stage/${stageId}`)).status).toBe(200);
    expect((await as(s, 'holder', 'POST', `/rpc/v2/step/${step.id}/logs/batch`, batch)).status).toBe(200);
    expect((await s.call('POST', `/rpc/v2/stage/${stageId}/heartbeat`)).status).toBe(204);
    const done = await json<WireStage>(
      await as(s, 'holder', 'PUT', `/rpc/v2/stage/${stageId}`, {
        ...running,
        status: 'success',
        stopped: 2,
        steps: [{ ...step, status: 'success', started: 1, stopped: 2 }],
      }),
    );
    expect(done.status).toBe('success');
  });

  it('refuses the details of a stage not yet accepted by the runner that asks', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const answer = await as(s, 'early', 'GET', `/rpc/v2/stage/${stages[0]!.id}`);
    expect(answer.status).toBe(409);
  });

  it('serves a stage’s caches and artifacts to its holder only: not to a runner that names nobody, nor another', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const stageId = stages[0]!.id;
    await takeAndStart(s, stageId, [plannedStep(1, 'test')], 'holder');
    const routes: [string, string, unknown?][] = [
      ['POST', `/rpc/v2/stage/${stageId}/cache/restore`, { key: 'deps' }],
      ['GET', `/rpc/v2/stage/${stageId}/artifacts/from/build`],
    ];
    for (const [method, path, body] of routes) {
      // The shared secret without X-SVC-Runner: Drone's runners have no caches, and nobody is the holder.
      const anonymous = await s.call(method, path, body);
      expect(anonymous.status, path).toBe(403);
      expect(((await anonymous.json()) as { message: string }).message).toBe(
        'caches and artifacts are for runners that name themselves (X-SVC-Runner)',
      );
      expect((await as(s, 'intruder', method, path, body)).status, path).toBe(409);
    }
    expect(
      (await as(s, 'holder', 'POST', `/rpc/v2/stage/${stageId}/cache/restore`, { key: 'deps' })).status,
    ).toBe(204);
    const poison = await fetch(`${s.url}/rpc/v2/stage/${stageId}/cache?key=deps`, {
      method: 'PUT',
      headers: { 'X-SVC-Token': SECRET, 'Content-Type': 'application/zstd' },
      body: 'poison',
    });
    expect(poison.status).toBe(403);
    expect(await s.store.caches.list(1)).toEqual([]);
  });
});
