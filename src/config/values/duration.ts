import { fail, ok, shown, type Codec } from './codec.js';

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1_000, ms: 1 } as const;
const EXPECTED = 'a number and a unit such as 24h, 90m, 1h30m or 45s';
// `ms` before `m` so that "500ms" is not read as 500 minutes followed by "s".
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/y;

/**
 * Parses a Go-style duration (`24h`, `1h30m`, `1.5h`, `250ms`, or a plain `0`) to whole milliseconds.
 * Returns undefined when the text is not a duration.
 */
export function parseDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  PART.lastIndex = 0;
  let total = 0;
  while (PART.lastIndex < text.length) {
    const match = PART.exec(text);
    if (!match) return undefined;
    const [, amount = '', unit = ''] = match;
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  // Fractions may only be used down to whole milliseconds ("1.5s" yes, "1.5ms" no).
  const rounded = Math.round(total * 1e6) / 1e6;
  return Number.isSafeInteger(rounded) ? rounded : undefined;
}

/**
 * The shortest Go-like form of a duration: zero parts left out (`1h30m`, `1h`, `45s`), seconds with a
 * fraction (`1.5s`), milliseconds alone below a second (`250ms`), `0s` for zero.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / UNIT_MS.h);
  const minutes = Math.floor((ms % UNIT_MS.h) / UNIT_MS.m);
  const rest = ms % UNIT_MS.m;
  const seconds = rest === 0 ? '' : `${rest / 1000}s`;
  return `${hours > 0 ? `${hours}h` : ''}${minutes > 0 ? `${minutes}m` : ''}${seconds}`;
}

/** A duration in milliseconds, at least `minMs`. */
export function duration(minMs = 0): Codec<number> {
  const expected = minMs > 0 ? `${EXPECTED}, of at least ${formatDuration(minMs)}` : EXPECTED;
  return {
    type: 'duration',
    expected,
    parse(raw, ctx) {
      const value = parseDuration(raw);
      if (value === undefined) return fail(`${shown(raw, ctx)} is not a duration; expected ${EXPECTED}`);
      if (value < minMs) return fail(`${shown(raw, ctx)} is too short; expected ${expected}`);
      return ok(value);
    },
    print: formatDuration,
  };
}
