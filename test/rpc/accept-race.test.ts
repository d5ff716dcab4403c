import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueuedStage } from '../../src/core/queue.js';
import type { Store } from '../../src/core/store.js';
import type { WireStage } from '../../src/runner/client/wire/index.js';
import { openStore } from '../../src/store/index.js';
import { testDialects, type TestDatabase } from '../support/databases.js';
import { claimingFilter, plannedStep, reportRunning } from './support/flow.js';
import { json, queueBuild, startServer, type TestServer } from './support/harness.js';

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`accepting a stage on ${dialect.name}, two server replicas`, () => {
    let database: TestDatabase;
    const stores: Store[] = [];
    const servers: TestServer[] = [];

    beforeAll(async () => {
      database = await dialect.create();
      // Two stores: two connection pools, as two server processes would have.
      for (let i = 0; i < 2; i++) stores.push(await openStore({ datasource: database.datasource }));
      for (const store of stores) servers.push(await startServer(store, { longPoll: 300 }));
    });

    afterAll(async () => {
      for (const server of servers) await server.close();
      for (const store of stores) await store.close();
      await database.drop();
    });

    it('lets exactly one of many concurrent runners take each stage; the others get 409', async () => {
      const [a, b] = servers;
      if (a === undefined || b === undefined) throw new Error('servers missing');
      const { stages } = await queueBuild(
        a.store,
        Array.from({ length: 6 }, (_, i) => ({ name: `p${i}` })),
      );
      for (const stage of stages) {
        const attempts = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            (i % 2 === 0 ? a : b).call('POST', `/rpc/v2/stage/${stage.id}?machine=runner-${i}`),
          ),
        );
        const statuses = attempts.map((r) => r.status).sort();
        expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
        const winner = attempts.find((r) => r.status === 200);
        const accepted = await json<WireStage>(winner!);
        const stored = await a.store.stages.find(stage.id);
        expect(stored?.machine).toBe(accepted.machine);
        expect(accepted.version).toBe(stage.version + 1);
        // The winner accepting again is not a conflict.
        const again = await b.call('POST', `/rpc/v2/stage/${stage.id}?machine=${accepted.machine}`);
        expect(again.status).toBe(200);
      }
    });

    it('no longer hands out a taken stage from either replica', async () => {
      const [a, b] = servers;
      if (a === undefined || b === undefined) throw new Error('servers missing');
      const filter = {
        kind: 'pipeline',
        type: 'docker',
        os: 'linux',
        arch: 'amd64',
        labels: { only: 'this-test' },
      };
      const { stages } = await queueBuild(a.store, [{ name: 'solo', labels: { only: 'this-test' } }]);
      const offered = await json<WireStage>(await a.call('POST', '/rpc/v2/stage', filter));
      expect(offered.id).toBe(stages[0]?.id);
      expect((await a.call('POST', `/rpc/v2/stage/${offered.id}?machine=runner-x`)).status).toBe(200);
      expect((await b.call('POST', '/rpc/v2/stage', filter)).status).toBe(204);
      expect((await a.call('POST', '/rpc/v2/stage', filter)).status).toBe(204);
    });

    it('claims as it answers: runners of both replicas asking with `claim` each get stages of their own', async () => {
      const [a, b] = servers;
      if (a === undefined || b === undefined) throw new Error('servers missing');
      const labels = { only: 'claims' };
      const { stages } = await queueBuild(
        a.store,
        Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, labels })),
      );
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).call('POST', '/rpc/v2/stage', claimingFilter(`r${i}`, labels)),
        ),
      );
      const claimed: WireStage[] = [];
      for (const answer of answers) if (answer.status === 200) claimed.push(await json<WireStage>(answer));
      // Every stage once, each already its runner's in the database, at the version after the take.
      expect(claimed.map((stage) => stage.id).sort((x, y) => x - y)).toEqual(stages.map((stage) => stage.id));
      for (const stage of claimed) {
        expect(stage.machine).toMatch(/^r\d$/);
        expect(await a.store.stages.find(stage.id)).toMatchObject({
          status: 'pending',
          machine: stage.machine,
          version: stage.version,
        });
      }
      expect(new Set(claimed.map((stage) => stage.machine)).size).toBe(6);
      expect(answers.filter((answer) => answer.status === 204)).toHaveLength(4);
      // The claimer reports it running with the version it was given: no accept in between.
      const first = claimed[0]!;
      expect((await reportRunning(a, first)).status).toBe(200);
    });

    // Issue 31: a server whose read of the queue began before the runner took the stage through
    // the other server offered that runner the stage again while it ran it; the runner ran it twice
    // and the second run's log batches met the first's.
    it.each(['running', 'pending'] as const)(
      'never answers a claim with a stage its runner already took and reported %s',
      async (reported) => {
        const [a] = servers;
        if (a === undefined) throw new Error('servers missing');
        const labels = { only: `stale-${reported}` };
        const { stages } = await queueBuild(a.store, [{ name: 'held', labels }]);
        const stale = (await a.store.queue.listQueued()).filter((row) => row.stage.id === stages[0]?.id);
        expect(stale).toHaveLength(1);
        const claimed = await json<WireStage>(
          await a.call('POST', '/rpc/v2/stage', claimingFilter('holder', labels)),
        );
        if (reported === 'running')
          expect((await reportRunning(a, claimed, [plannedStep(1, 'work')])).status).toBe(200);
        const late = await startServer(withQueueRead(stores[1]!, stale), { longPoll: 300 });
        try {
          const again = await late.call('POST', '/rpc/v2/stage', claimingFilter('holder', labels));
          if (reported === 'running') expect(again.status).toBe(204);
          // Taken and not started: the answer that carried it may have been lost, so its runner may
          // have it again (the runner drops a stage it already runs).
          else expect((await json<WireStage>(again)).id).toBe(claimed.id);
          expect(await a.store.stages.find(claimed.id)).toMatchObject({
            machine: 'holder',
            status: reported,
          });
        } finally {
          await late.close();
        }
      },
    );
  });
}

/** `store` whose queue reads answer `rows`: a read that began before the stages were taken. */
function withQueueRead(store: Store, rows: QueuedStage[]): Store {
  const bound = <T extends object>(target: T, replace: Record<string | symbol, unknown>): T =>
    new Proxy(target, {
      get(object, key) {
        if (key in replace) return replace[key];
        const value: unknown = Reflect.get(object, key, object);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
      },
    });
  const queue = bound(store.queue, { listQueued: () => Promise.resolve(rows) });
  return bound(store, { queue });
}
