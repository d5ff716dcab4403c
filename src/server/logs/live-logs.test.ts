import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import { InMemoryLiveLogs } from './live-logs.js';

const line = (pos: number): LogLine => ({ pos, out: `line ${pos}`, time: 0 });

describe('InMemoryLiveLogs', () => {
  it('delivers published lines in order to the subscribers of that step only', () => {
    const logs = new InMemoryLiveLogs();
    const seen: number[] = [];
    const other: number[] = [];
    logs.subscribe(
      1,
      (lines) => seen.push(...lines.map((l) => l.pos)),
      () => undefined,
    );
    logs.subscribe(
      2,
      (lines) => other.push(...lines.map((l) => l.pos)),
      () => undefined,
    );
    logs.publish(1, [line(0), line(1)]);
    logs.publish(1, [line(2)]);
    expect(seen).toEqual([0, 1, 2]);
    expect(other).toEqual([]);
  });

  it('calls onEnd once after the last lines, and forgets the step', () => {
    const logs = new InMemoryLiveLogs();
    const events: string[] = [];
    logs.subscribe(
      1,
      (lines) => events.push(`lines ${lines.length}`),
      () => events.push('end'),
    );
    logs.publish(1, [line(0)]);
    logs.end(1);
    logs.end(1);
    logs.publish(1, [line(1)]);
    expect(events).toEqual(['lines 1', 'end']);
    expect(logs.watchedSteps).toBe(0);
  });

  it('stops delivering after unsubscribe, and drops a subscriber that throws', () => {
    const logs = new InMemoryLiveLogs();
    const kept: number[] = [];
    const unsubscribe = logs.subscribe(
      1,
      () => kept.push(-1),
      () => undefined,
    );
    logs.subscribe(
      1,
      () => {
        throw new Error('broken watcher');
      },
      () => undefined,
    );
    logs.subscribe(
      1,
      (lines) => kept.push(...lines.map((l) => l.pos)),
      () => undefined,
    );
    unsubscribe();
    logs.publish(1, [line(0)]);
    logs.publish(1, [line(1)]);
    expect(kept).toEqual([0, 1]);
  });
});
