import { describe, expect, it } from 'vitest';
import { fixture } from './fixtures.test-helper.js';
import { parseTap } from './tap.js';

describe('parseTap', () => {
  it('reads node --test --test-reporter=tap output (generated)', () => {
    const report = parseTap(fixture('node-test.tap'));
    expect(report.tests.map((t) => [t.name, t.status, t.message])).toEqual([
      ['passes', 'passed', undefined],
      ['fails', 'failed', 'Expected values to be strictly equal:'],
      ['skipped', 'skipped', 'not today'],
      ['todo', 'skipped', 'TODO later'],
      ['group', 'passed', undefined],
    ]);
    expect(report.tests[1]?.output).toContain('2 !== 3');
    expect(report.tests[1]?.durationMs).toBe(1);
  });

  it('reads bare TAP 14 with message: diagnostics and a bail out', () => {
    const tap = [
      'TAP version 14',
      '1..3',
      'ok 1 - first',
      'not ok 2 - second',
      '  ---',
      '  message: "boom"',
      '  ...',
      'ok 3 # skip no network',
      'Bail out! database down',
    ].join('\n');
    const report = parseTap(tap);
    expect(report.tests.map((t) => [t.name, t.status, t.message])).toEqual([
      ['first', 'passed', undefined],
      ['second', 'failed', 'boom'],
      ['', 'skipped', 'no network'],
    ]);
    expect(report.problems).toEqual(['line 9: the run bailed out: database down']);
  });

  it('refuses text with neither plan nor test lines', () => {
    expect(() => parseTap('hello')).toThrow(/expected a plan/);
  });
});
