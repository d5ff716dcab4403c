import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import { RpcError } from '../client/errors.js';
import { LogStream } from './log-stream.js';

const line = (pos: number, out = `line ${pos}`): LogLine => ({ pos, out, time: 0 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stream whose server fails the first `failures` sends (no answer), then stores what it gets. */
function stream(
  options: {
    failures?: number;
    refuse?: boolean;
    maxLines?: number;
    maxBytes?: number;
    interval?: number;
    /** How long the server takes to acknowledge a batch (ms). */
    latency?: number;
  } = {},
) {
  const attempts: { batch: number; lines: number[] }[] = [];
  const stored = new Map<number, number[]>();
  const uploads: number[][] = [];
  const tails: { batches: number; lines: number; rest: number[] }[] = [];
  let failures = options.failures ?? 0;
  const logs = new LogStream({
    send: async (batch, lines) => {
      attempts.push({ batch, lines: lines.map((l) => l.pos) });
      if (options.latency !== undefined) await sleep(options.latency);
      if (options.refuse === true) throw new RpcError(404, 'step 3 not found');
      if (failures > 0) {
        failures--;
        throw new RpcError(0, 'no answer');
      }
      if (!stored.has(batch))
        stored.set(
          batch,
          lines.map((l) => l.pos),
        );
    },
    upload: (acknowledged, rest, all) => {
      uploads.push(all.map((l) => l.pos));
      tails.push({ ...acknowledged, rest: rest.map((l) => l.pos) });
      return Promise.resolve();
    },
    interval: options.interval ?? 20,
    maxLines: options.maxLines ?? 5,
    maxBytes: options.maxBytes ?? 1024 * 1024,
    backoff: { min: 10, max: 40 },
    logger: pino({ level: 'silent' }),
  });
  return { logs, attempts, stored, uploads, tails };
}

describe('LogStream', () => {
  it('holds a fast step back while a full batch waits behind the one on its way, then lets it go', async () => {
    const { logs, stored, uploads } = stream({ maxLines: 5, latency: 100 });
    // Before the step starts nothing is sent, and nothing is held back.
    for (let pos = 0; pos < 12; pos++) logs.add(line(pos));
    expect(logs.room()).toBeUndefined();
    logs.start();
    // Batch 0 (5 lines) is on its way; 7 wait, more than a batch: the step waits.
    const wait = logs.room();
    expect(wait).toBeInstanceOf(Promise);
    expect(logs.room()).toBe(wait);
    let released = false;
    void wait?.then(() => (released = true));
    await sleep(50);
    expect(released).toBe(false);
    // Batch 0 stored, batch 1 cut from the waiting lines: room again.
    await wait;
    expect(stored.get(0)).toEqual([0, 1, 2, 3, 4]);
    expect(logs.room()).toBeUndefined();
    await logs.finish();
    expect(uploads).toEqual([Array.from({ length: 12 }, (_, i) => i)]);
  });

  it('never holds a step back while the server does not acknowledge, nor once it is over', async () => {
    const { logs } = stream({ maxLines: 2, failures: 100 });
    logs.start();
    for (let pos = 0; pos < 10; pos++) logs.add(line(pos));
    await sleep(5);
    // The first send failed: a retry is due later, the lines wait in memory.
    expect(logs.room()).toBeUndefined();
    const over = stream({ maxLines: 2, latency: 50 });
    over.logs.start();
    for (let pos = 0; pos < 10; pos++) over.logs.add(line(pos));
    const wait = over.logs.room();
    expect(wait).toBeInstanceOf(Promise);
    const finishing = over.logs.finish();
    await wait;
    expect(over.logs.room()).toBeUndefined();
    await finishing;
    await logs.finish();
  });

  it('sends lines in numbered batches of at most maxLines, in order, and uploads them all at the end', async () => {
    const { logs, stored, uploads } = stream();
    logs.start();
    for (let pos = 0; pos < 12; pos++) logs.add(line(pos));
    await sleep(100);
    expect([...stored.entries()]).toEqual([
      [0, [0, 1, 2, 3, 4]],
      [1, [5, 6, 7, 8, 9]],
      [2, [10, 11]],
    ]);
    expect(logs.acknowledged).toBe(12);
    await logs.finish();
    expect(uploads).toEqual([Array.from({ length: 12 }, (_, i) => i)]);
    // What the server acknowledged goes as batch numbers, not again as lines.
    expect(logs.lines).toHaveLength(12);
  });

  it('uploads, besides every line, which batches the server holds and the lines after them', async () => {
    const { logs, tails } = stream({ refuse: false });
    logs.start();
    for (let pos = 0; pos < 7; pos++) logs.add(line(pos));
    await sleep(60);
    logs.add(line(7));
    logs.add(line(8));
    await logs.finish();
    expect(tails).toEqual([{ batches: 2, lines: 7, rest: [7, 8] }]);
  });

  it('sends a full batch of what came meanwhile right after the acknowledgement, the rest within the interval', async () => {
    const { logs, stored } = stream({ maxLines: 1000, latency: 40, interval: 10 });
    logs.start();
    logs.add(line(0));
    await sleep(20); // batch 0 is on its way
    for (let pos = 1; pos < 1500; pos++) logs.add(line(pos));
    await sleep(150);
    expect([...stored.keys()]).toEqual([0, 1, 2]);
    expect(stored.get(0)).toEqual([0]);
    expect(stored.get(1)).toHaveLength(1000);
    expect(stored.get(2)).toHaveLength(499);
    await logs.finish();
  });

  it('sends a lone line within the interval, without waiting for more', async () => {
    const { logs, stored } = stream({ maxLines: 1000, interval: 30 });
    logs.start();
    logs.add(line(0));
    await sleep(10);
    expect(stored.size).toBe(0);
    await sleep(60);
    expect([...stored.values()]).toEqual([[0]]);
    await logs.finish();
  });

  it('resends an unacknowledged batch with the same number and lines; later lines go in later batches', async () => {
    const { logs, attempts, stored } = stream({ failures: 3 });
    logs.start();
    for (let pos = 0; pos < 3; pos++) logs.add(line(pos));
    await sleep(30);
    for (let pos = 3; pos < 7; pos++) logs.add(line(pos));
    await sleep(400);
    const first = attempts.filter((a) => a.batch === 0);
    expect(first.length).toBe(4);
    expect(first.every((a) => JSON.stringify(a.lines) === JSON.stringify(first[0]?.lines))).toBe(true);
    const all = [...stored.keys()].sort().flatMap((batch) => stored.get(batch) ?? []);
    expect(all).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await logs.finish();
  });

  it('keeps batches under maxBytes, with at least one line each', async () => {
    const { logs, stored } = stream({ maxBytes: 100, maxLines: 100 });
    logs.start();
    logs.add(line(0, 'x'.repeat(500)));
    logs.add(line(1, 'short'));
    logs.add(line(2, 'short'));
    await sleep(80);
    expect([...stored.values()]).toEqual([[0], [1, 2]]);
    await logs.finish();
  });

  it('stops streaming when the server refuses a batch; the upload still carries every line', async () => {
    const { logs, attempts, uploads } = stream({ refuse: true });
    logs.start();
    logs.add(line(0));
    await sleep(100);
    logs.add(line(1));
    await sleep(100);
    expect(attempts).toHaveLength(1);
    await logs.finish();
    expect(uploads).toEqual([[0, 1]]);
  });
});
