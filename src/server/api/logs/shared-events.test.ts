import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../core/log.js';
import { lineEvent, SharedEventEncoder } from './shared-events.js';

const lines = (first: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ pos: first + i, out: `line "${first + i}" é 😀`, time: i }));

const text = (chunks: readonly Buffer[]): string => Buffer.concat(chunks).toString();

describe('SharedEventEncoder', () => {
  it('encodes a run of lines once per array while its publish lasts, as each line’s event', async () => {
    const encoder = new SharedEventEncoder(1 << 20);
    const batch = lines(5, 3);
    const shared = encoder.events(batch);
    expect(shared?.first).toBe(5);
    expect(text(shared?.chunks ?? [])).toBe(batch.map(lineEvent).join(''));
    expect(encoder.events(batch)).toBe(shared);
    expect(lineEvent({ pos: 1, out: 'a', time: 2 })).toBe('data: {"pos":1,"out":"a","time":2}\n\n');
    for (const line of [
      { pos: 3, out: 'é " \\ \u0001 \u2028 \ud800 😀', time: Number.NaN },
      { pos: -0, out: '', time: 1e21 },
    ])
      expect(lineEvent(line)).toBe(`data: ${JSON.stringify(line)}\n\n`);
    // Once the publish is over, the same array is each viewer's to encode (its buffers may be reused).
    await nextTurn();
    expect(encoder.events(batch)).toBeUndefined();
  });

  it('splits the events into writes of about the given size', () => {
    const batch = lines(0, 100);
    const shared = new SharedEventEncoder(200).events(batch);
    expect(shared?.chunks.length).toBeGreaterThan(10);
    expect(text(shared?.chunks ?? [])).toBe(batch.map(lineEvent).join(''));
  });

  it('leaves lines whose positions do not follow each other to each viewer', () => {
    const encoder = new SharedEventEncoder(1 << 20);
    expect(encoder.events([...lines(0, 2), ...lines(5, 2)])).toBeUndefined();
    expect(encoder.events([])).toBeUndefined();
  });

  it('uses a batch’s buffers again only after its publish and every write of them are over', async () => {
    const encoder = new SharedEventEncoder(1 << 20);
    const first = encoder.events(lines(0, 10));
    const written = first?.hold();
    await nextTurn();
    // A write still under way: the next batch gets buffers of its own.
    const second = encoder.events(lines(10, 10));
    expect(second?.chunks[0]?.buffer).not.toBe(first?.chunks[0]?.buffer);
    expect(text(first?.chunks ?? [])).toBe(lines(0, 10).map(lineEvent).join(''));
    written?.();
    written?.(); // a callback called twice counts once
    await nextTurn();
    const third = encoder.events(lines(20, 10));
    const reused = [first?.chunks[0]?.buffer, second?.chunks[0]?.buffer];
    expect(reused).toContain(third?.chunks[0]?.buffer);
    expect(text(third?.chunks ?? [])).toBe(lines(20, 10).map(lineEvent).join(''));
  });
});
