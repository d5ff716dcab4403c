import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../src/core/log.js';
import { openStore } from '../../src/store/index.js';
import { testDialects } from '../support/databases.js';
import { json, queueBuild, startServer } from './support/harness.js';
import { plannedStep, takeAndStart } from './support/flow.js';
import { useServers } from './support/fresh.js';

const lines = (from: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ pos: from + i, out: `line ${from + i}`, time: 0 }));

describe('rpc log batches and upload', () => {
  const server = useServers();

  async function runningStep(s: Awaited<ReturnType<typeof server>>): Promise<number> {
    const { stages } = await queueBuild(s.store, [{ name: 'build' }]);
    const running = await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'test')]);
    return running.steps[0]!.id;
  }

  it('stores numbered batches once, drops repeats by number, and publishes new lines live', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const live: number[] = [];
    s.liveLogs.subscribe(
      stepId,
      (got) => live.push(...got.map((l) => l.pos)),
      () => undefined,
    );
    const send = (batch: number, got: LogLine[]) =>
      s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, { batch, lines: got });
    expect(await json(await send(0, lines(0, 3)))).toEqual({ batch: 0, duplicate: false });
    expect(await json(await send(1, lines(3, 2)))).toEqual({ batch: 1, duplicate: false });
    expect(await json(await send(1, lines(3, 2)))).toEqual({ batch: 1, duplicate: true });
    expect(await json(await send(0, lines(0, 3)))).toEqual({ batch: 0, duplicate: true });
    expect(await s.store.logBatches.list(stepId)).toEqual(lines(0, 5));
    expect(live).toEqual([0, 1, 2, 3, 4]);
  });

  it('accepts Drone’s bare arrays of lines (204)', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const response = await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, lines(0, 2));
    expect(response.status).toBe(204);
    await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, lines(2, 1));
    expect(await s.store.logBatches.list(stepId)).toEqual(lines(0, 3));
  });

  it('stores the uploaded log, deletes the batches and ends the live log', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    let ended = false;
    s.liveLogs.subscribe(
      stepId,
      () => undefined,
      () => (ended = true),
    );
    await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, { batch: 0, lines: lines(0, 2) });
    expect((await s.call('POST', `/rpc/v2/step/${stepId}/logs/upload`, lines(0, 4))).status).toBe(204);
    expect(await s.store.logs.find(stepId)).toEqual(lines(0, 4));
    expect(await s.store.logBatches.list(stepId)).toEqual([]);
    expect(ended).toBe(true);
    // Uploading again (a retry) replaces the log.
    expect((await s.call('POST', `/rpc/v2/step/${stepId}/logs/upload`, lines(0, 4))).status).toBe(204);
    expect(await s.store.logs.find(stepId)).toEqual(lines(0, 4));
  });

  it('refuses batches for unknown steps and malformed batches', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    expect(
      (await s.call('POST', '/rpc/v2/step/999999/logs/batch', { batch: 0, lines: lines(0, 1) })).status,
    ).toBe(404);
    expect((await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, { batch: -1, lines: [] })).status).toBe(
      400,
    );
    expect(
      (await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, { lines: [{ pos: 'x' }] })).status,
    ).toBe(400);
    const raw = await fetch(`${s.url}/rpc/v2/step/${stepId}/logs/batch`, {
      method: 'POST',
      headers: { 'X-SVC-Token': 'rpc-secret-for-tests' },
      body: '{not json',
    });
    expect(raw.status).toBe(400);
  });
});

for (const dialect of testDialects()) {
  describe.skipIf(dialect.skip)(`acknowledged log lines are durable on ${dialect.name}`, () => {
    it('keeps every acknowledged batch across closing and reopening the store', async () => {
      const database = await dialect.create();
      try {
        const first = await openStore({ datasource: database.datasource });
        const s = await startServer(first);
        const { stages } = await queueBuild(first, [{ name: 'build' }]);
        const running = await takeAndStart(s, stages[0]!.id, [plannedStep(1, 'test')]);
        const stepId = running.steps[0]!.id;
        for (let batch = 0; batch < 5; batch++) {
          const response = await s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, {
            batch,
            lines: lines(batch * 10, 10),
          });
          expect(response.status).toBe(200);
        }
        await s.close();
        await first.close();
        const reopened = await openStore({ datasource: database.datasource });
        try {
          expect(await reopened.logBatches.list(stepId)).toEqual(lines(0, 50));
        } finally {
          await reopened.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
