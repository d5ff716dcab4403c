import { describe, expect, it } from 'vitest';
import { runningStep } from '../../../../test/rpc/support/flow.js';
import { useServers } from '../../../../test/rpc/support/fresh.js';
import { json, SECRET, type TestServer } from '../../../../test/rpc/support/harness.js';

describe('rpc log batches', () => {
  const server = useServers();

  /** Posts `text` as it is, as a runner other than svc's might write it. */
  const post = (s: TestServer, stepId: number, text: string) =>
    fetch(`${s.url}/rpc/v2/step/${stepId}/logs/batch`, {
      method: 'POST',
      headers: { 'X-SVC-Token': SECRET, 'Content-Type': 'application/json' },
      body: text,
    });

  const stored = async (s: TestServer, stepId: number, count: number) =>
    (await s.store.logBatches.json(stepId, count))?.batches.map((data) => data.toString('utf8'));

  it('stores a batch written as svc runners write it as it came, and publishes its lines', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const lines = [
      { pos: 0, out: 'tab\t"quoted" é 😀\u001b[0m\n', time: 0 },
      { pos: 1, out: '', time: 3 },
    ];
    const text = `{"batch":0,"lines":${JSON.stringify(lines)}}`;
    expect(await json(await post(s, stepId, text))).toEqual({ batch: 0, duplicate: false });
    expect(await stored(s, stepId, 1)).toEqual([JSON.stringify(lines)]);
    expect(s.liveLogs.published.get(stepId)).toEqual(lines);
    expect(await json(await post(s, stepId, text))).toEqual({ batch: 0, duplicate: true });
  });

  it('stores other forms of the same batch as svc writes lines: spaces, extra fields, times to round', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const text =
      '{ "lines": [ {"time": 1.7, "out": "a", "pos": 0, "extra": true}, {"pos":1,"out":"b"} ], "batch": 0 }';
    expect(await json(await post(s, stepId, text))).toEqual({ batch: 0, duplicate: false });
    expect(await stored(s, stepId, 1)).toEqual([
      '[{"pos":0,"out":"a","time":1},{"pos":1,"out":"b","time":0}]',
    ]);
    // Drone's runners: a bare array, stored under its first line's position.
    expect((await post(s, stepId, '[{"pos":2,"out":"c","time":0}]')).status).toBe(204);
    expect(await s.store.logBatches.list(stepId)).toEqual([
      { pos: 0, out: 'a', time: 1 },
      { pos: 1, out: 'b', time: 0 },
      { pos: 2, out: 'c', time: 0 },
    ]);
  });

  it('refuses text that is not JSON, or not a batch, with 400 naming what is wrong', async () => {
    const s = await server();
    const stepId = await runningStep(s);
    const notJson = await post(s, stepId, '{"batch":0,"lines":[');
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('the body is not JSON');
    const twice = await post(s, stepId, '{"batch":0,"lines":[],"lines":[{"pos":"x"}]}');
    expect(twice.status).toBe(400);
    expect(await twice.text()).toContain('the log batch is malformed');
    expect(await s.store.logBatches.list(stepId)).toEqual([]);
  });
});
