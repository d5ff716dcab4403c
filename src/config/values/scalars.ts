import { fail, ok, shown, type Codec } from './codec.js';

/** `true` or `false`, nothing else: `yes` or `1` are refused rather than guessed at. */
export const boolean: Codec<boolean> = {
  type: 'boolean',
  expected: 'true or false',
  parse: (raw, ctx) =>
    raw === 'true' || raw === 'false'
      ? ok(raw === 'true')
      : fail(`${shown(raw, ctx)} is not a boolean; expected true or false`),
  print: (value) => value,
};

/** Any non-empty string (an empty variable counts as unset). */
export function text(expected = 'any text'): Codec<string> {
  return { type: 'string', expected, parse: (raw) => ok(raw), print: (value) => value };
}

/** The bounds (inclusive) and unit of an integer setting. */
export interface IntegerRange {
  readonly min?: number;
  readonly max?: number;
  /** What the number counts, for docs and messages: "bytes", "MHz". */
  readonly unit?: string;
}

/** A decimal whole number, optionally within a range. */
export function integer(range: IntegerRange = {}): Codec<number> {
  const expected = integerExpected(range);
  return {
    type: 'integer',
    expected,
    parse(raw, ctx) {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        return fail(`${shown(raw, ctx)} is not an integer; expected ${expected}`);
      }
      const value = Number(raw);
      const tooSmall = range.min !== undefined && value < range.min;
      const tooLarge = range.max !== undefined && value > range.max;
      return tooSmall || tooLarge ? fail(`${value} is out of range; expected ${expected}`) : ok(value);
    },
    print: (value) => value,
  };
}

function integerExpected({ min, max, unit }: IntegerRange): string {
  const of = unit === undefined ? '' : ` (${unit})`;
  if (min !== undefined && max !== undefined) return `a whole number from ${min} to ${max}${of}`;
  if (min !== undefined) return `a whole number of at least ${min}${of}`;
  if (max !== undefined) return `a whole number of at most ${max}${of}`;
  return `a whole number${of}`;
}

/** One of a fixed set of words, e.g. `http` or `https`. */
export function oneOf<const V extends string>(
  values: readonly V[],
  what: string,
  expected: string = orList(values),
): Codec<V> {
  return {
    type: 'string',
    expected,
    parse: (raw, ctx) =>
      (values as readonly string[]).includes(raw)
        ? ok(raw as V)
        : fail(`${shown(raw, ctx)} is not ${what}; expected ${expected}`),
    print: (value) => value,
  };
}

/** "a, b or c". */
export function orList(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1) ?? ''}`;
}
