/*
 * Runners with their own credentials (issue 30): a runner token names its runner, the server binds
 * every stage the runner takes to that name, and nobody else — another token's runner, a runner
 * with the shared secret naming itself or nobody — can read or write those stages. Revoking a token
 * refuses its next request, and the watchdog ends its stages `error`. Attacks in the manner of
 * CVE-2026-50141 (an agent impersonating other agents).
 */
import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { newRunnerToken } from '../../src/server/rpc/runner-tokens.js';
import { eventually } from '../api/harness.js';
import { plannedStep } from './support/flow.js';
import { SECRET, json, queueBuild, type TestServer } from './support/harness.js';
import { useServers } from './support/fresh.js';

async function mint(s: TestServer, name: string, labels: Record<string, string> = {}): Promise<string> {
  const { token, hash } = newRunnerToken();
  await s.store.runnerTokens.create({ name, hash, labels });
  return token;
}

/** A request made with `token` (a runner token, or the shared secret), naming `runner` if given. */
function as(
  s: TestServer,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  runner?: string,
): Promise<Response> {
  return fetch(`${s.url}${path}`, {
    method,
    headers: {
      'X-SVC-Token': token,
      ...(runner === undefined ? {} : { 'X-SVC-Runner': runner }),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Queues a one-stage build, takes it with `token` as runner `name` and reports it running with a step. */
async function heldBy(s: TestServer, token: string, name: string) {
  const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
  const stageId = stages[0]!.id;
  const accepted = await json<WireStage>(
    await as(s, token, 'POST', `/rpc/v2/stage/${stageId}?machine=${name}`),
  );
  const running = await json<WireStage>(
    await fetch(`${s.url}/rpc/v2/stage/${stageId}`, {
      method: 'PUT',
      headers: { 'X-SVC-Token': token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...accepted, status: 'running', started: 1, steps: [plannedStep(1, 'test')] }),
    }),
  );
  return { stageId, running, step: running.steps[0]! };
}

/** Every request a runner makes about a stage it holds. */
function touches(s: TestServer, token: string, held: Awaited<ReturnType<typeof heldBy>>, runner?: string) {
  const { stageId, running, step } = held;
  const lines = [{ pos: 0, out: 'forged\n', time: 1 }];
  return Promise.all([
    as(s, token, 'GET', `/rpc/v2/stage/${stageId}`, undefined, runner),
    as(s, token, 'PUT', `/rpc/v2/stage/${stageId}`, { ...running, status: 'success', stopped: 2 }, runner),
    as(s, token, 'PUT', `/rpc/v2/step/${step.id}`, { ...step, status: 'running', started: 1 }, runner),
    as(s, token, 'POST', `/rpc/v2/step/${step.id}/logs/batch`, { batch: 0, lines }, runner),
    as(s, token, 'POST', `/rpc/v2/step/${step.id}/logs/upload`, lines, runner),
    as(s, token, 'POST', `/rpc/v2/stage/${stageId}/heartbeat`, undefined, runner),
    // Caches and artifacts: a main branch's cache poisoned, a deployed binary replaced.
    as(s, token, 'POST', `/rpc/v2/stage/${stageId}/cache/restore`, { key: 'deps' }, runner),
    as(s, token, 'PUT', `/rpc/v2/stage/${stageId}/cache?key=deps`, 'poison', runner),
    as(s, token, 'PUT', `/rpc/v2/stage/${stageId}/artifacts/bin?step=test`, 'forged', runner),
    as(s, token, 'GET', `/rpc/v2/stage/${stageId}/artifacts/from/build`, undefined, runner),
  ]);
}

describe('rpc: runners with their own tokens', () => {
  const server = useServers();

  it('holds a stage under the token’s name, and refuses it to another token’s runner, however it names itself', async () => {
    const s = await server();
    const [a, b] = [await mint(s, 'runner-a'), await mint(s, 'runner-b')];
    const held = await heldBy(s, a, 'runner-a');
    expect((await s.store.stages.find(held.stageId))?.machine).toBe('runner-a');

    for (const answer of await touches(s, b, held)) expect(answer.status).toBe(409);
    // Naming itself as the holder does not help: the token decides who it is.
    for (const answer of await touches(s, b, held, 'runner-a')) expect(answer.status).toBe(403);
    expect((await as(s, b, 'POST', `/rpc/v2/stage/${held.stageId}?machine=runner-a`)).status).toBe(403);
    // Nothing of theirs was applied.
    expect(await s.store.logBatches.list(held.step.id)).toEqual([]);
    expect((await s.store.stages.find(held.stageId))?.status).toBe('running');
    // Its own runner is served.
    expect((await as(s, a, 'POST', `/rpc/v2/stage/${held.stageId}/heartbeat`)).status).toBe(204);
    expect(
      (await as(s, a, 'POST', `/rpc/v2/stage/${held.stageId}/cache/restore`, { key: 'deps' })).status,
    ).toBe(204);
    expect(await s.store.caches.list(1)).toEqual([]);
  });

  it('keeps runners with the shared secret off a token runner’s stages and name', async () => {
    const s = await server();
    const a = await mint(s, 'runner-a');
    const held = await heldBy(s, a, 'runner-a');
    for (const runner of [undefined, 'runner-a', 'someone']) {
      for (const answer of await touches(s, SECRET, held, runner)) expect(answer.status).toBe(403);
    }
    const { stages } = await queueBuild(s.store, [{ name: 'other' }]);
    expect((await as(s, SECRET, 'POST', `/rpc/v2/stage/${stages[0]!.id}?machine=runner-a`)).status).toBe(403);
    const claim = {
      kind: 'pipeline',
      type: 'docker',
      claim: true,
      runner: { name: 'runner-a', kind: 'docker' },
    };
    expect((await as(s, SECRET, 'POST', '/rpc/v2/stage', claim)).status).toBe(403);
    // The shared secret still works for what no token holds (Drone's runners).
    expect((await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}?machine=drone-1`)).status).toBe(200);
  });

  it('offers a token runner the stages its token’s labels select, not those it claims', async () => {
    const s = await server({ longPoll: 300 });
    const token = await mint(s, 'builder', { pool: 'ci' });
    await queueBuild(s.store, [{ name: 'deploy', labels: { pool: 'prod' } }]);
    const filter = { kind: 'pipeline', type: 'docker', os: 'linux', arch: 'amd64', labels: { pool: 'prod' } };
    expect((await as(s, token, 'POST', '/rpc/v2/stage', filter)).status).toBe(204);
    const { stages } = await queueBuild(s.store, [{ name: 'test', labels: { pool: 'ci' } }]);
    const offered = await json<WireStage>(
      await as(s, token, 'POST', '/rpc/v2/stage', { ...filter, labels: {} }),
    );
    expect(offered.id).toBe(stages[0]!.id);
  });

  it('refuses a revoked token at its next request, and its stage ends error within the watchdog’s bound', async () => {
    const s = await server({ timeouts: { heartbeat: 600, watchdogInterval: 100 } });
    const token = await mint(s, 'runner-r');
    const held = await heldBy(s, token, 'runner-r');
    expect(await s.store.runnerTokens.revoke('runner-r', Date.now())).toBe(true);
    expect((await as(s, token, 'POST', `/rpc/v2/stage/${held.stageId}/heartbeat`)).status).toBe(401);
    expect((await as(s, token, 'POST', '/rpc/v2/ping')).status).toBe(401);
    const ended = await eventually(async () => {
      const stage = await s.store.stages.find(held.stageId);
      return stage?.status === 'error' ? stage : undefined;
    }, 5_000);
    expect(ended.error).not.toBe('');
  });

  it('accepts only runner tokens with SVC_RPC_SECRET_DISABLED', async () => {
    const s = await server({ sharedSecretDisabled: true });
    const token = await mint(s, 'only');
    expect((await s.call('POST', '/rpc/v2/ping')).status).toBe(401);
    expect((await as(s, token, 'POST', '/rpc/v2/ping')).status).toBe(204);
    expect((await as(s, 'svcr_forged', 'POST', '/rpc/v2/ping')).status).toBe(401);
  });
});

describe('rpc: the reporting of a token runner’s stage, end to end', () => {
  const server = useServers();

  it('runs a stage from accept to success with a token and no X-SVC-Runner header (Drone’s runners)', async () => {
    const s = await server();
    const token = await mint(s, 'drone-like');
    const held = await heldBy(s, token, 'drone-like');
    const done = await json<WireStage>(
      await as(s, token, 'PUT', `/rpc/v2/stage/${held.stageId}`, {
        ...held.running,
        status: 'success',
        stopped: 2,
        steps: [{ ...held.step, status: 'success', started: 1, stopped: 2 }],
      }),
    );
    expect(done.status).toBe('success');
  });
});
