import { describe, expect, it } from 'vitest';
import { ansiSegments } from './ansi.js';
import { layout } from './graph-layout.js';
import { inTime } from './status.js';
import { bytes, millis } from './units.js';

describe('ansiSegments', () => {
  it('turns colour and bold codes into classes, drops other escape sequences', () => {
    expect(ansiSegments('\u001b[1;31merror\u001b[0m: \u001b[32mok\u001b[39m done\u001b[2K')).toEqual([
      { text: 'error', classes: 'fg31 bold' },
      { text: ': ', classes: '' },
      { text: 'ok', classes: 'fg32' },
      { text: ' done', classes: '' },
    ]);
    expect(ansiSegments('\u001b[38;5;196mred\u001b[m plain')).toEqual([
      { text: 'red', classes: '' },
      { text: ' plain', classes: '' },
    ]);
  });
});

describe('the stage graph’s layout', () => {
  it('puts each stage one column after the deepest stage it depends on, rows in order', () => {
    const placed = layout([
      { name: 'lint', depends_on: [] },
      { name: 'unit', depends_on: null },
      { name: 'build', depends_on: ['lint', 'unit'] },
      { name: 'deploy', depends_on: ['build', 'lint'] },
      { name: 'loop', depends_on: ['loop', 'missing'] },
    ]);
    expect(Object.fromEntries(placed)).toEqual({
      lint: { column: 0, row: 0 },
      unit: { column: 0, row: 1 },
      build: { column: 1, row: 0 },
      deploy: { column: 2, row: 0 },
      loop: { column: 1, row: 1 },
    });
  });
});

describe('bytes', () => {
  it('shows a size in binary units, one decimal from a KiB', () => {
    expect(bytes(0)).toBe('0 B');
    expect(bytes(1023)).toBe('1023 B');
    expect(bytes(1536)).toBe('1.5 KiB');
    expect(bytes(48_213_504)).toBe('46.0 MiB');
    expect(bytes(10 * 1024 ** 3)).toBe('10.0 GiB');
  });
});

describe('inTime', () => {
  it('says how long until a time, rounded in its largest unit', () => {
    const now = Date.now() / 1000;
    expect(inTime(now + 30 * 86_400 - 5)).toBe('in 30 days');
    expect(inTime(now + 86_400 + 60)).toBe('in 1 day');
    expect(inTime(now + 2 * 3_600 + 5)).toBe('in 2 hours');
    expect(inTime(now + 100)).toBe('in 2 minutes');
    expect(inTime(now + 61)).toBe('in 1 minute');
    expect(inTime(now - 10)).toBe('in a minute');
  });
});

describe('millis', () => {
  it('shows a test’s duration in ms, seconds with one decimal, then minutes', () => {
    expect(millis(12)).toBe('12 ms');
    expect(millis(1234)).toBe('1.2 s');
    expect(millis(125_000)).toBe('2m 05s');
  });
});
