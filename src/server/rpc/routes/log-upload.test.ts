import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../core/log.js';
import { runningStep } from '../../../../test/rpc/support/flow.js';
import { useServers } from '../../../../test/rpc/support/fresh.js';
import { json, type TestServer } from '../../../../test/rpc/support/harness.js';
import { lastPos } from './log-upload.js';

const lines = (from: number, count: number, text = 'line'): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({
    pos: from + i,
    out: `${text} ${from + i}`,
    time: (from + i) % 3,
  }));

describe('rpc log upload after batches', () => {
  const server = useServers();

  const batch = (s: TestServer, stepId: number, number: number, got: LogLine[]) =>
    s.call('POST', `/rpc/v2/step/${stepId}/logs/batch`, { batch: number, lines: got });
  const upload = (s: TestServer, stepId: number, body: unknown) =>
    s.call('POST', `/rpc/v2/step/${stepId}/logs/upload`, body);

  it('completes the log from the stored batches and the lines after them, then deletes the batches', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    let ended: number | undefined | 'no' = 'no';
    s.liveLogs.subscribe(
      stepId,
      () => undefined,
      (lastPos) => (ended = lastPos),
    );
    await json(await batch(s, stepId, 0, lines(0, 3)));
    await json(await batch(s, stepId, 1, lines(3, 4)));
    // Sent but never acknowledged: the runner does not count it, and its lines come again after.
    await json(await batch(s, stepId, 2, lines(7, 2)));
    const response = await upload(s, stepId, { batches: 2, lines: lines(7, 3) });
    expect(response.status).toBe(204);
    expect(await s.store.logs.find(stepId)).toEqual(lines(0, 10));
    expect(await s.store.logBatches.list(stepId)).toEqual([]);
    // The end tells watchers where the stored log stops, so that those who saw it all need not read it.
    expect(ended).toBe(9);
    // Live watchers got the lines of the batches, then those only the upload carried.
    const live = (s.liveLogs.published.get(stepId) ?? []).map((line) => line.pos);
    expect(live).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('stores just the batches when no line came after them, and just the lines for batches: 0', async () => {
    const s = await server();
    const first = await runningStep(s);
    await json(await batch(s, first, 0, lines(0, 2)));
    expect((await upload(s, first, { batches: 1, lines: [] })).status).toBe(204);
    expect(await s.store.logs.find(first)).toEqual(lines(0, 2));
    const second = await runningStep(s);
    expect((await upload(s, second, { batches: 0, lines: lines(0, 2) })).status).toBe(204);
    expect(await s.store.logs.find(second)).toEqual(lines(0, 2));
    const empty = await runningStep(s);
    expect((await upload(s, empty, { batches: 0, lines: [] })).status).toBe(204);
    expect(await s.store.logs.find(empty)).toEqual([]);
  });

  it('answers 409 when a batch is missing and stores nothing; a retry of an upload stores the same log', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    await json(await batch(s, stepId, 0, lines(0, 2)));
    await json(await batch(s, stepId, 2, lines(4, 2)));
    const gap = await upload(s, stepId, { batches: 3, lines: [] });
    expect(gap.status).toBe(409);
    expect(await s.store.logs.find(stepId)).toBeUndefined();
    expect(await s.store.logBatches.list(stepId)).toEqual([...lines(0, 2), ...lines(4, 2)]);

    await json(await batch(s, stepId, 1, lines(2, 2)));
    expect((await upload(s, stepId, { batches: 3, lines: [] })).status).toBe(204);
    // A retry whose acknowledgement was lost: the batches are the log's now, and make it again.
    expect((await upload(s, stepId, { batches: 3, lines: [] })).status).toBe(204);
    expect(await s.store.logs.find(stepId)).toEqual(lines(0, 6));
    expect(await s.store.logBatches.list(stepId)).toEqual([]);
    // Batches the stage's end deleted (a stage closed by the server): every line, then.
    const closed = await runningStep(s);
    await json(await batch(s, closed, 0, lines(0, 2)));
    await s.store.logBatches.delete(closed);
    expect((await upload(s, closed, { batches: 1, lines: [] })).status).toBe(409);
  });

  it('refuses a malformed upload with 400', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    expect((await upload(s, stepId, { batches: -1, lines: [] })).status).toBe(400);
    expect((await upload(s, stepId, { batches: 0, lines: [{ pos: 'x' }] })).status).toBe(400);
    expect((await upload(s, stepId, [{ pos: 0, out: 7, time: 0 }])).status).toBe(400);
  });

  it('takes a whole log larger than the protocol’s 64 MiB request limit', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const big = lines(0, 600_000, 'x'.repeat(100));
    const response = await upload(s, stepId, big);
    expect(response.status).toBe(204);
    const stored = await s.store.logs.find(stepId);
    expect(stored).toHaveLength(600_000);
    expect(stored?.at(-1)).toEqual(big.at(-1));
  });

  it('reads the last position of a stored batch without parsing it, whatever its lines hold', () => {
    const batchJson = (got: LogLine[]) => Buffer.from(JSON.stringify(got));
    expect(lastPos(batchJson(lines(0, 3)))).toBe(2);
    expect(lastPos(batchJson([{ pos: 41, out: '{"pos":99}', time: 0 }]))).toBe(41);
    expect(lastPos(batchJson([]))).toBe(-1);
  });
});
