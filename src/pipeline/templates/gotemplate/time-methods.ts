import { formatGoTime, goTimeString } from './time.js';
import { GoTime, typeName, type GoValue } from './values.js';

const MONTHS = 'January February March April May June July August September October November December';
const DAYS = 'Sunday Monday Tuesday Wednesday Thursday Friday Saturday';

/** What a method takes and gives: Go's time.Time methods that templates call, in UTC. */
const METHODS: Readonly<Record<string, { args: number; call: (t: Date, args: GoValue[]) => GoValue }>> = {
  Format: { args: 1, call: (t, [layout]) => formatGoTime(t.getTime(), layout as string) },
  String: { args: 0, call: (t) => goTimeString(t.getTime()) },
  Unix: { args: 0, call: (t) => Math.floor(t.getTime() / 1000) },
  UnixMilli: { args: 0, call: (t) => t.getTime() },
  UnixNano: { args: 0, call: (t) => t.getTime() * 1_000_000 },
  Year: { args: 0, call: (t) => t.getUTCFullYear() },
  Month: { args: 0, call: (t) => MONTHS.split(' ')[t.getUTCMonth()] ?? '' },
  Day: { args: 0, call: (t) => t.getUTCDate() },
  Weekday: { args: 0, call: (t) => DAYS.split(' ')[t.getUTCDay()] ?? '' },
  Hour: { args: 0, call: (t) => t.getUTCHours() },
  Minute: { args: 0, call: (t) => t.getUTCMinutes() },
  Second: { args: 0, call: (t) => t.getUTCSeconds() },
  YearDay: {
    args: 0,
    call: (t) => Math.floor((t.getTime() - Date.UTC(t.getUTCFullYear(), 0, 1)) / 86_400_000) + 1,
  },
  UTC: { args: 0, call: (t) => new GoTime(t.getTime()) },
  Local: { args: 0, call: (t) => new GoTime(t.getTime()) },
};

/** Calls a method of a time.Time (`now.Unix`, `(time .x).Format "2006"`); `fail` makes the error. */
export function timeMethod(
  time: GoTime,
  name: string,
  args: GoValue[],
  fail: (message: string) => Error,
): GoValue {
  const method = Object.hasOwn(METHODS, name) ? METHODS[name] : undefined;
  if (method === undefined) throw fail(`can't evaluate field ${name} in type time.Time`);
  if (args.length !== method.args)
    throw fail(`wrong number of args for ${name}: want ${method.args} got ${args.length}`);
  if (name === 'Format' && typeof args[0] !== 'string')
    throw fail(`wrong type for value; expected string; got ${typeName(args[0])}`);
  return method.call(new Date(time.ms), args);
}
