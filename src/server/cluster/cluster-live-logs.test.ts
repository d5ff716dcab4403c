import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import type { Store } from '../../core/store.js';
import { openStore } from '../../store/index.js';
import { newBuild, newRepo, newStage } from '../../store/cases/fixtures.case.js';
import { testDialects, type TestDatabase } from '../../../test/support/databases.js';
import { InMemoryLiveLogs } from '../logs/index.js';
import { ClusterLiveLogs } from './cluster-live-logs.js';

const lines = (from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ pos: from + i, out: `line ${from + i}\n`, time: 1 }));

/**
 * Two servers on one real database, each with its ClusterLiveLogs: a viewer on A follows a step
 * whose batches a runner sends to B — and, as a balancer would spread them, some to A.
 */
for (const dialect of testDialects().filter((d) => d.name !== 'SQLite')) {
  describe.skipIf(dialect.skip)(`live logs across servers on ${dialect.name}`, () => {
    let database: TestDatabase;
    let a: Store;
    let b: Store;
    const logs: ClusterLiveLogs[] = [];
    const logger = pino({ level: 'silent' });
    const liveLogs = (store: Store): ClusterLiveLogs => {
      const made = new ClusterLiveLogs({
        local: new InMemoryLiveLogs(),
        channel: store.signals,
        batches: store.logBatches,
        logger,
      });
      logs.push(made);
      return made;
    };

    beforeAll(async () => {
      database = await dialect.create();
      a = await openStore({ datasource: database.datasource });
      b = await openStore({ datasource: database.datasource });
    });
    afterAll(async () => {
      for (const made of logs) made.close();
      await a?.close();
      await b?.close();
      await database?.drop();
    });

    it('delivers each batch once, wherever it was stored, and ends with the step', async () => {
      const onA = liveLogs(a);
      const onB = liveLogs(b);
      const repo = await a.repos.create(newRepo());
      const { stages } = await a.builds.create(newBuild(repo.id), [newStage(1, 1)]);
      const [step] = await a.steps.list(stages[0]?.id ?? 0);
      if (step === undefined) throw new Error('no step');
      const seen: LogLine[] = [];
      let ended: number | undefined | 'not yet' = 'not yet';
      onA.subscribe(
        step.id,
        (got) => seen.push(...got),
        (last) => (ended = last),
      );
      // Listening starts asynchronously (a connection, or a first read of the signal table).
      await new Promise((resolve) => setTimeout(resolve, 500));

      // Batches 0, 1, 3 go to B and batch 2 to A, as a round-robin balancer might send them.
      const receive = async (on: ClusterLiveLogs, store: Store, batch: number): Promise<void> => {
        const sent = lines(batch * 10, 10);
        await store.logBatches.append(step.id, batch, sent);
        on.publish(step.id, sent, batch);
      };
      await receive(onB, b, 0);
      await receive(onB, b, 1);
      await receive(onA, a, 2);
      await receive(onB, b, 3);
      for (let waited = 0; seen.length < 40 && waited < 5_000; waited += 25) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(seen.map((line) => line.pos).sort((x, y) => x - y)).toEqual(lines(0, 40).map((l) => l.pos));
      expect(new Set(seen.map((line) => line.pos)).size).toBe(40);

      onB.end(step.id, 39);
      for (let waited = 0; ended === 'not yet' && waited < 5_000; waited += 25) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(ended).toBe(39);
    });
  });
}
