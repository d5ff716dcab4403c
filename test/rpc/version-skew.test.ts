/**
 * Issue 32, the rolling-upgrade rule for runners (docs/runners.md, "Versions"): servers and runners
 * are upgraded independently, so a server meets runners older and newer than itself. The protocol is
 * Drone's RPC v2, and each side reads the other's messages leniently: fields it does not know are
 * ignored, and svc's additions may be missing (Drone's runners and servers never send them). Tried
 * here with a runner sending fields from the future, one sending only what Drone's runners send, and
 * the runner's reading of a stage's details from an older and from a newer server.
 */
import { describe, expect, it } from 'vitest';
import { wireDetails, type WireStage } from '../../src/runner/client/wire/index.js';
import { json, queueBuild } from './support/harness.js';
import { plannedStep } from './support/flow.js';
import { useServers } from './support/fresh.js';

const FUTURE = { added_in_a_later_svc: { nested: [1, 2, 3] }, another_flag: true };

describe('runners of another version than the server', () => {
  const server = useServers();

  it('serves a newer runner whose messages carry fields this server does not know', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const filter = {
      kind: 'pipeline',
      type: 'docker',
      os: 'linux',
      arch: 'amd64',
      ...FUTURE,
      runner: { name: 'future', kind: 'docker', capacity: 1, max_procs: 0, version: '99.0.0', ...FUTURE },
    };
    const offered = await json<WireStage>(await s.call('POST', '/rpc/v2/stage', filter));
    expect(offered.id).toBe(stages[0]!.id);
    const accepted = await json<WireStage>(
      await s.call('POST', `/rpc/v2/stage/${offered.id}?machine=future`),
    );
    const running = await json<WireStage>(
      await s.call('PUT', `/rpc/v2/stage/${accepted.id}`, {
        ...accepted,
        ...FUTURE,
        status: 'running',
        started: 1,
        steps: [{ ...plannedStep(1, 'test'), ...FUTURE }],
      }),
    );
    const step = running.steps[0]!;
    const batch = { batch: 0, lines: [{ pos: 0, out: 'from the future\n', time: 0, ...FUTURE }], ...FUTURE };
    expect((await s.call('POST', `/rpc/v2/step/${step.id}/logs/batch`, batch)).status).toBe(200);
    expect((await s.store.logBatches.list(step.id)).length).toBe(1);
    const done = await json<WireStage>(
      await s.call('PUT', `/rpc/v2/stage/${running.id}`, {
        ...running,
        ...FUTURE,
        status: 'success',
        stopped: 2,
        steps: [{ ...step, ...FUTURE, status: 'success', started: 1, stopped: 2 }],
      }),
    );
    expect(done.status).toBe('success');
    expect((await s.store.builds.find(build.id))?.status).toBe('success');
  });

  it('serves an older runner that sends only what Drone’s runners send', async () => {
    const s = await server();
    const { build, stages } = await queueBuild(s.store, [{ name: 'build' }]);
    // No `runner`, no `claim`: the filter of drone-runner-docker.
    const filter = { kind: 'pipeline', type: 'docker', os: 'linux', arch: 'amd64', variant: '', kernel: '' };
    const offered = await json<WireStage>(await s.call('POST', '/rpc/v2/stage', filter));
    expect(offered.id).toBe(stages[0]!.id);
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${offered.id}?machine=old`));
    // The stage as an older runner reports it: only Drone's fields, svc's additions left out.
    const { id, version, status } = accepted;
    const running = await json<WireStage>(
      await s.call('PUT', `/rpc/v2/stage/${id}`, {
        id,
        version,
        status: status === 'pending' ? 'running' : status,
        started: 1,
        steps: [{ number: 1, name: 'test', status: 'pending' }],
      }),
    );
    const step = running.steps[0]!;
    const done = await json<WireStage>(
      await s.call('PUT', `/rpc/v2/stage/${id}`, {
        id,
        version: running.version,
        status: 'failure',
        started: 1,
        stopped: 2,
        exit_code: 1,
        steps: [
          { id: step.id, number: 1, name: 'test', status: 'failure', exit_code: 1, started: 1, stopped: 2 },
        ],
      }),
    );
    expect(done.status).toBe('failure');
    expect((await s.store.builds.find(build.id))?.status).toBe('failure');
  });

  it('lets a runner read a stage’s details from an older server and from a newer one', async () => {
    const s = await server();
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const accepted = await json<WireStage>(await s.call('POST', `/rpc/v2/stage/${stages[0]!.id}?machine=r`));
    const details = await json<Record<string, unknown>>(await s.call('GET', `/rpc/v2/stage/${accepted.id}`));
    // An older server (or Drone's) sends none of svc's additions.
    const { id_tokens: _tokens, secret_errors: _errors, ...older } = details;
    const fromOlder = wireDetails.parse(older);
    expect(fromOlder.id_tokens).toEqual([]);
    expect(fromOlder.secret_errors).toEqual([]);
    expect(fromOlder.stage.id).toBe(accepted.id);
    // A newer server sends more than this runner knows: read as far as it knows.
    const fromNewer = wireDetails.parse({
      ...details,
      ...FUTURE,
      stage: { ...(details.stage as object), ...FUTURE },
    });
    expect(fromNewer).toEqual(wireDetails.parse(details));
  });
});
