import { Cron as CronPattern } from 'croner';
import { InvalidInputError } from '../../core/errors.js';

/**
 * Cron expressions as svc accepts them: five fields (minute hour day-of-month month day-of-week), or
 * six with seconds first, and the nicknames @hourly, @daily, @weekly, @monthly, @yearly (@annually).
 * Times are the server's local time, as Drone reads them.
 */

/** The first run strictly after `after` (epoch milliseconds); INVALID_INPUT naming `field` when the expression is bad or never runs. */
export function nextRun(expr: string, after: number, field = 'expr'): number {
  let pattern: CronPattern;
  try {
    pattern = new CronPattern(expr.trim(), { paused: true });
  } catch (error) {
    // croner says what is wrong ("CronPattern: Invalid value for minute: 61"); keep its reason only.
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    throw new InvalidInputError(`${field}: invalid cron expression "${expr}": ${reason}`);
  }
  const next = pattern.nextRun(new Date(after));
  if (next === null) {
    throw new InvalidInputError(`${field}: the cron expression "${expr}" never runs`);
  }
  return next.getTime();
}
