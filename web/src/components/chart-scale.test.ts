import { describe, expect, it } from 'vitest';
import {
  dayLabel,
  HEIGHT,
  niceDuration,
  niceMax,
  PAD,
  percent,
  runsOf,
  WIDTH,
  xOf,
  yOf,
} from './chart-scale.js';

describe('the insights charts’ scales', () => {
  it('rounds a scale’s top up to 1, 2 or 5 times a power of ten', () => {
    expect([0, 0.3, 1, 7, 12, 250, 999, 61_000].map(niceMax)).toEqual([
      1, 0.5, 1, 10, 20, 500, 1000, 100_000,
    ]);
  });

  it('rounds a scale of durations to seconds, minutes and hours', () => {
    expect(
      [0, 700, 1500, 40_000, 61_000, 500_000, 3_000_000, 5 * 3_600_000, 30 * 3_600_000].map(niceDuration),
    ).toEqual([1000, 1000, 2000, 60_000, 120_000, 600_000, 3_600_000, 6 * 3_600_000, 48 * 3_600_000]);
  });

  it('spreads points over the width and values over the height', () => {
    expect(xOf(0, 1)).toBe(WIDTH / 2);
    expect([xOf(0, 3), xOf(1, 3), xOf(2, 3)]).toEqual([PAD, WIDTH / 2, WIDTH - PAD]);
    expect(yOf(0, 10)).toBe(HEIGHT - PAD);
    expect(yOf(10, 10)).toBe(PAD);
    expect(yOf(20, 10)).toBe(PAD);
  });

  it('breaks lines at days without a value', () => {
    expect(runsOf([1, 2, undefined, 3, undefined, undefined, 4, 5])).toEqual([[0, 1], [3], [6, 7]]);
    expect(runsOf([undefined])).toEqual([]);
  });

  it('names rates and days for people', () => {
    expect([0, 0.05, 0.833, 0.995, 1].map(percent)).toEqual(['0%', '5.0%', '83%', '99.5%', '100%']);
    expect(dayLabel('2026-03-05')).toBe('Mar 5');
  });
});
