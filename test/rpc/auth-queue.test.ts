import { describe, expect, it } from 'vitest';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { json, queueBuild, SECRET } from './support/harness.js';
import { useServers } from './support/fresh.js';

const FILTER = { kind: 'pipeline', type: 'docker', os: 'linux', arch: 'amd64', labels: {} };

describe('rpc authentication', () => {
  const server = useServers();

  it('refuses a missing or wrong secret with a bare 401, on every route', async () => {
    const s = await server();
    for (const [method, path] of [
      ['POST', '/rpc/v2/ping'],
      ['POST', '/rpc/v2/stage'],
      ['GET', '/rpc/v2/stage/1'],
      ['PUT', '/rpc/v2/step/1'],
      ['POST', '/rpc/v2/step/1/logs/batch'],
    ] as const) {
      for (const token of [null, 'wrong', `${SECRET}x`, '']) {
        const response = await s.call(method, path, undefined, token);
        expect(response.status, `${method} ${path} with ${String(token)}`).toBe(401);
        expect(await response.text()).toBe('');
      }
    }
  });

  // Guessing the shared secret: past 30 failures a minute from one address, nothing is compared.
  it('answers 429 with Retry-After to an address past 30 failed attempts a minute, even with the secret', async () => {
    const s = await server();
    for (let i = 0; i < 30; i++)
      expect((await s.call('POST', '/rpc/v2/ping', undefined, `guess-${i}`)).status).toBe(401);
    const blocked = await s.call('POST', '/rpc/v2/ping');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await blocked.text()).toBe('');
    // Another server's count is its own.
    const other = await server();
    expect((await other.call('POST', '/rpc/v2/ping')).status).toBe(204);
  });

  it('accepts the secret in X-SVC-Token and in Drone’s X-Drone-Token', async () => {
    const s = await server();
    expect((await s.call('POST', '/rpc/v2/ping')).status).toBe(204);
    const drone = await fetch(`${s.url}/rpc/v2/ping`, {
      method: 'POST',
      headers: { 'X-Drone-Token': SECRET },
    });
    expect(drone.status).toBe(204);
  });
});

describe('rpc stage requests (long-poll)', () => {
  const server = useServers();

  it('hands out a stage queued after the poll started within 100 ms of wake()', async () => {
    const s = await server({ longPoll: 10_000, recheck: 10_000 });
    const polling = s.call('POST', '/rpc/v2/stage', FILTER);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(s.queue.waiting).toBe(1);
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const woken = performance.now();
    s.queue.wake();
    const response = await polling;
    const elapsed = performance.now() - woken;
    const stage = await json<WireStage>(response);
    expect(stage).toMatchObject({ id: stages[0]?.id, name: 'build', status: 'pending', machine: '' });
    expect(elapsed).toBeLessThan(100);
  });

  it('finds a stage queued without a wake-up at the next re-check, and answers 204 when none comes', async () => {
    const s = await server({ longPoll: 1_500, recheck: 200 });
    const empty = await s.call('POST', '/rpc/v2/stage', FILTER);
    expect(empty.status).toBe(204);
    const polling = s.call('POST', '/rpc/v2/stage', FILTER);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await queueBuild(s.store, [{ name: 'quiet' }]);
    expect((await json<WireStage>(await polling)).name).toBe('quiet');
  });

  it('matches kind, type, os, arch, variant and kernel as Drone does', async () => {
    const s = await server({ longPoll: 200 });
    await queueBuild(s.store, [
      { name: 'arm', arch: 'arm64', variant: 'v8' },
      { name: 'ssh', type: 'ssh' },
      { name: 'windows', os: 'windows', kernel: '1809' },
    ]);
    const ask = async (filter: object) => {
      const response = await s.call('POST', '/rpc/v2/stage', { ...FILTER, ...filter });
      return response.status === 204 ? undefined : (await json<WireStage>(response)).name;
    };
    expect(await ask({})).toBeUndefined();
    expect(await ask({ arch: 'arm64', variant: 'v7' })).toBeUndefined();
    expect(await ask({ arch: 'arm64', variant: 'v8' })).toBe('arm');
    expect(await ask({ type: 'ssh' })).toBe('ssh');
    expect(await ask({ kind: '', type: '', os: 'windows', kernel: '1903' })).toBeUndefined();
    expect(await ask({ kind: '', type: '', os: 'windows', kernel: '1809' })).toBe('windows');
  });

  it('matches labels exactly: the stage’s labels must equal the runner’s', async () => {
    const s = await server({ longPoll: 200 });
    await queueBuild(s.store, [{ name: 'eu', labels: { region: 'eu' } }, { name: 'plain' }]);
    const ask = async (labels: Record<string, string>) => {
      const response = await s.call('POST', '/rpc/v2/stage', { ...FILTER, labels });
      return response.status === 204 ? undefined : (await json<WireStage>(response)).name;
    };
    expect(await ask({ region: 'eu', gpu: 'yes' })).toBeUndefined();
    expect(await ask({ region: 'us' })).toBeUndefined();
    expect(await ask({ region: 'eu' })).toBe('eu');
    expect(await ask({})).toBe('plain');
  });

  it('hands a runner with limits only builds of the events, repositories and trust it allows', async () => {
    const s = await server({ longPoll: 200 });
    await queueBuild(s.store, [{ name: 'tag-build' }], {
      repo: { namespace: 'acme', name: 'site' },
      build: { event: 'tag' },
    });
    await queueBuild(s.store, [{ name: 'other-repo' }], { repo: { namespace: 'octo', name: 'cat' } });
    await queueBuild(s.store, [{ name: 'trusted' }], {
      repo: { namespace: 'acme', name: 'ops', trusted: true },
    });
    const ask = async (limits: object) => {
      const response = await s.call('POST', '/rpc/v2/stage', { ...FILTER, limits });
      return response.status === 204 ? undefined : (await json<WireStage>(response)).name;
    };
    expect(await ask({ events: ['push'], repos: ['acme/*'], trusted: true })).toBe('trusted');
    expect(await ask({ events: ['pull_request'] })).toBeUndefined();
    expect(await ask({ repos: ['acme/site'], events: ['tag'] })).toBe('tag-build');
    expect(await ask({ repos: ['octo/*'] })).toBe('other-repo');
  });

  it('offers each stage to one request at a time: two runners polling get two different stages', async () => {
    const s = await server({ longPoll: 300 });
    await queueBuild(s.store, [{ name: 'one' }, { name: 'two' }]);
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => s.call('POST', '/rpc/v2/stage', FILTER)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 204]);
    const got = await Promise.all(answers.filter((r) => r.status === 200).map((r) => json<WireStage>(r)));
    expect(got.map((stage) => stage.name).sort()).toEqual(['one', 'two']);
  });

  it('respects the pipeline’s concurrency limit across builds', async () => {
    const s = await server({ longPoll: 200 });
    const first = await queueBuild(s.store, [{ name: 'deploy', limit: 1 }]);
    await queueBuild(s.store, [{ name: 'deploy', limit: 1 }], { existingRepo: first.repo });
    const stage = await json<WireStage>(await s.call('POST', '/rpc/v2/stage', FILTER));
    await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${stage.id}?machine=runner-a`));
    expect((await s.call('POST', '/rpc/v2/stage', FILTER)).status).toBe(204);
    // A runner accepting the other one without being offered it is refused too.
    const other = (await s.store.queue.listQueued())[0]!.stage;
    const refused = await s.call('POST', `/rpc/v2/stage/${other.id}?machine=runner-b`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({
      message: 'pipeline "deploy" already runs 1 time(s), its concurrency limit is 1',
    });
  });
});
