import { describe, expect, it } from 'vitest';
import { duration, formatDuration, parseDuration } from './duration.js';

const ctx = { cwd: '/', env: {}, secret: false };

describe('parseDuration', () => {
  it.each([
    ['24h', 86_400_000],
    ['90m', 5_400_000],
    ['1h30m', 5_400_000],
    ['45s', 45_000],
    ['250ms', 250],
    ['1m500ms', 60_500],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['soon', '10', 'h', '1d', '-1h', '1h 30m', '', '1.5ms', '1h30', 'ms'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [5_400_000, '1h30m'],
    [3_600_000, '1h'],
    [45_000, '45s'],
    [0, '0s'],
    [1_500, '1.5s'],
    [250, '250ms'],
    [61_500, '1m1.5s'],
    [90_061_000, '25h1m1s'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('writes what parseDuration reads back to the same value', () => {
    for (const ms of [1, 999, 1_000, 61_001, 3_599_999, 86_400_000]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});

describe('the duration codec', () => {
  it('says what it got and what it expects', () => {
    expect(duration().parse('soon', ctx)).toEqual({
      ok: false,
      message: '"soon" is not a duration; expected a number and a unit such as 24h, 90m, 1h30m or 45s',
    });
  });

  it('refuses values below its minimum', () => {
    expect(duration(1_000).parse('0', ctx)).toEqual({
      ok: false,
      message:
        '"0" is too short; expected a number and a unit such as 24h, 90m, 1h30m or 45s, of at least 1s',
    });
    expect(duration(1_000).parse('1s', ctx)).toEqual({ ok: true, value: 1_000 });
  });
});
