/*
 * Small helpers that reproduce how Nomad (a Go program) prints things: Go durations, RFC 3339 times with
 * trimmed nanoseconds, hashicorp/go-multierror lists, and unix-nanosecond timestamps.
 */
import { randomUUID } from 'node:crypto';

export const SECOND_NS = 1_000_000_000;
export const MINUTE_NS = 60 * SECOND_NS;
export const HOUR_NS = 60 * MINUTE_NS;
/** Go's zero `time.Time` as JSON: what Nomad prints for a StartedAt that never happened. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export const uuid = (): string => randomUUID();

/**
 * Now in unix nanoseconds, as Nomad's `CreateTime`, `ModifyTime` and event `Time`. A JS number cannot
 * hold every nanosecond of today, so the value is millisecond-precise (still an integer in JSON).
 */
export const nowNs = (): number => Date.now() * 1_000_000;

/** A time as Go's `time.Time` JSON: RFC 3339 with the fraction's trailing zeros trimmed. */
export function goTime(ms: number | undefined): string {
  if (ms === undefined) return ZERO_TIME;
  return new Date(ms).toISOString().replace(/\.?0+Z$/, 'Z');
}

const UNITS: Record<string, number> = {
  ns: 1,
  us: 1_000,
  µs: 1_000,
  μs: 1_000,
  ms: 1_000_000,
  s: SECOND_NS,
  m: MINUTE_NS,
  h: HOUR_NS,
};

/** Go's `time.ParseDuration` (`5s`, `1m30s`, `1.5h`, `100ms`, `0`) in nanoseconds; undefined when invalid. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  const part = /^(\d*\.?\d*)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== '') {
    const match = part.exec(rest);
    const [whole, number = '', unit = ''] = match ?? [];
    if (whole === undefined || number === '' || number === '.') return undefined;
    total += Number(number) * (UNITS[unit] ?? 0);
    rest = rest.slice(whole.length);
  }
  return sign * Math.round(total);
}

/** Go's `time.Duration.String()`: `5s`, `1m0s`, `24h0m0s`, `1.5s`, `250ms`. */
export function formatGoDuration(ns: number): string {
  if (ns === 0) return '0s';
  const sign = ns < 0 ? '-' : '';
  const abs = Math.abs(Math.round(ns));
  if (abs < 1_000) return `${sign}${abs}ns`;
  if (abs < 1_000_000) return `${sign}${fraction(abs, 1_000)}µs`;
  if (abs < SECOND_NS) return `${sign}${fraction(abs, 1_000_000)}ms`;
  const hours = Math.floor(abs / HOUR_NS);
  const minutes = Math.floor((abs % HOUR_NS) / MINUTE_NS);
  const seconds = `${fraction(abs % MINUTE_NS, SECOND_NS)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function fraction(value: number, unit: number): string {
  const whole = Math.floor(value / unit);
  const rest = value % unit;
  if (rest === 0) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, '0').replace(/0+$/, '')}`;
}

/** hashicorp/go-multierror's default text: `1 error occurred:\n\t* …\n\n` (nested lists stay nested). */
export function multierror(errors: readonly string[]): string {
  if (errors.length === 1) return `1 error occurred:\n\t* ${errors[0]}\n\n`;
  const points = errors.map((error) => `* ${error}`);
  return `${errors.length} errors occurred:\n\t${points.join('\n\t')}\n\n`;
}

/** A glob where only `*` is special, as Nomad matches datacenters (ryanuber/go-glob). */
export function globMatch(pattern: string, value: string): boolean {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '.*');
  return new RegExp(`^${escaped}$`, 's').test(value);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects-free timeout race: resolves `undefined` when `promise` takes longer than `ms`. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
