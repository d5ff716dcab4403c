import { describe, expect, it } from 'vitest';
import { SentPositions } from './sent-positions.js';

describe('SentPositions', () => {
  it('keeps in-order lines as one range and refuses repeats', () => {
    const sent = new SentPositions();
    for (let pos = 0; pos < 10_000; pos++) expect(sent.add(pos)).toBe(true);
    expect(sent.ranges).toBe(1);
    expect(sent.add(0)).toBe(false);
    expect(sent.add(9_999)).toBe(false);
    expect(sent.add(10_000)).toBe(true);
  });

  it('fills gaps and merges the ranges they separated', () => {
    const sent = new SentPositions();
    for (const pos of [0, 1, 5, 6, 3]) sent.add(pos);
    expect(sent.ranges).toBe(3);
    expect(sent.add(2)).toBe(true);
    expect(sent.ranges).toBe(2);
    expect(sent.add(4)).toBe(true);
    expect(sent.ranges).toBe(1);
    for (let pos = 0; pos <= 6; pos++) expect(sent.add(pos)).toBe(false);
  });

  it('answers as a set of every position would, for any order', () => {
    // A fixed linear congruential sequence: the same "random" orders on every run.
    let seed = 12_345;
    const next = (limit: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % limit;
    };
    for (let round = 0; round < 50; round++) {
      const sent = new SentPositions();
      const reference = new Set<number>();
      for (let i = 0; i < 300; i++) {
        const pos = next(120);
        expect(sent.add(pos)).toBe(!reference.has(pos));
        reference.add(pos);
      }
    }
  });

  it('records a run that follows the last position at once, and nothing of one that does not', () => {
    const sent = new SentPositions();
    expect(sent.addRun(0, 100)).toBe(true);
    expect(sent.addRun(100, 50)).toBe(true);
    expect(sent.ranges).toBe(1);
    expect(sent.hasAllUpTo(149)).toBe(true);
    expect(sent.addRun(140, 20)).toBe(false);
    expect(sent.addRun(200, 10)).toBe(false);
    expect(sent.add(150)).toBe(true);
    expect(sent.add(200)).toBe(true);
  });

  it('tells whether every position up to a last one was sent', () => {
    const sent = new SentPositions();
    expect(sent.hasAllUpTo(-1)).toBe(true);
    expect(sent.hasAllUpTo(0)).toBe(false);
    for (const pos of [0, 1, 3]) sent.add(pos);
    expect(sent.hasAllUpTo(1)).toBe(true);
    expect(sent.hasAllUpTo(3)).toBe(false);
    sent.add(2);
    expect(sent.hasAllUpTo(3)).toBe(true);
  });
});
