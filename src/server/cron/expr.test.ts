import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors.js';
import { nextRun } from './expr.js';

const at = (iso: string) => new Date(iso).getTime();

describe('nextRun', () => {
  const now = at('2026-03-04T10:20:30');

  it('reads five fields, six with seconds first, and the nicknames', () => {
    expect(nextRun('0 0 * * *', now)).toBe(at('2026-03-05T00:00:00'));
    expect(nextRun('*/15 * * * * *', now)).toBe(at('2026-03-04T10:20:45'));
    expect(nextRun('@hourly', now)).toBe(at('2026-03-04T11:00:00'));
    expect(nextRun('@daily', now)).toBe(at('2026-03-05T00:00:00'));
    expect(nextRun('@weekly', now)).toBe(at('2026-03-08T00:00:00'));
    expect(nextRun('@monthly', now)).toBe(at('2026-04-01T00:00:00'));
    expect(nextRun('@yearly', now)).toBe(at('2027-01-01T00:00:00'));
  });

  it('gives the run strictly after the time given', () => {
    expect(nextRun('0 0 * * *', at('2026-03-05T00:00:00'))).toBe(at('2026-03-06T00:00:00'));
  });

  it('refuses a bad expression with the reason, naming the field', () => {
    expect(() => nextRun('61 * * * *', now)).toThrow(InvalidInputError);
    expect(() => nextRun('61 * * * *', now)).toThrow(
      'expr: invalid cron expression "61 * * * *": Invalid value for minute: 61',
    );
    expect(() => nextRun('@every 5m', now)).toThrow(/^expr: invalid cron expression "@every 5m": /);
    expect(() => nextRun('', now)).toThrow(/^expr: invalid cron expression "": /);
  });

  it('refuses an expression that never runs', () => {
    expect(() => nextRun('0 0 31 2 *', now)).toThrow('expr: the cron expression "0 0 31 2 *" never runs');
  });
});
