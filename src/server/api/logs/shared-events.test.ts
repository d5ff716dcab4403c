import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../core/log.js';
import { lineEvent, sharedEvents } from './shared-events.js';

const lines = (first: number, count: number): LogLine[] =>
  Array.from({ length: count }, (_, i) => ({ pos: first + i, out: `line "${first + i}" é`, time: i }));

describe('sharedEvents', () => {
  it('encodes a run of lines once per array, as each line’s event', () => {
    const batch = lines(5, 3);
    const shared = sharedEvents(batch, 1 << 20);
    expect(shared?.first).toBe(5);
    expect(Buffer.concat(shared?.chunks ?? []).toString()).toBe(batch.map(lineEvent).join(''));
    expect(sharedEvents(batch, 1 << 20)).toBe(shared);
    expect(lineEvent({ pos: 1, out: 'a', time: 2 })).toBe('data: {"pos":1,"out":"a","time":2}\n\n');
  });

  it('splits the events into writes of about the given size', () => {
    const batch = lines(0, 100);
    const shared = sharedEvents(batch, 200);
    expect(shared?.chunks.length).toBeGreaterThan(10);
    expect(Buffer.concat(shared?.chunks ?? []).toString()).toBe(batch.map(lineEvent).join(''));
  });

  it('leaves lines whose positions do not follow each other to each viewer', () => {
    expect(sharedEvents([...lines(0, 2), ...lines(5, 2)], 1 << 20)).toBeUndefined();
    expect(sharedEvents([], 1 << 20)).toBeUndefined();
  });
});
