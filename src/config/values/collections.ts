import { fail, ok, REDACTED, type Codec } from './codec.js';

/** A string map such as `region:eu,tier:1`. */
export type StringMap = Readonly<Record<string, string>>;

/** What the entries of a list must look like. */
export interface EntryRule {
  /** "a webhook event" */
  readonly one: string;
  /** "webhook events" */
  readonly many: string;
  /** The accepted form, completing "expected …". */
  readonly expected: string;
  test(entry: string): boolean;
}

/** Splits a comma-separated value: entries trimmed, empty ones dropped. */
export function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** A comma-separated list, each entry checked by `rule` when given. */
export function list(rule?: EntryRule): Codec<readonly string[]> {
  const expected =
    rule === undefined ? 'comma-separated values' : `comma-separated ${rule.many}: ${rule.expected}`;
  return {
    type: 'list',
    expected,
    parse(raw) {
      const entries = splitList(raw);
      const bad = rule === undefined ? [] : entries.filter((entry) => !rule.test(entry));
      if (rule === undefined || bad.length === 0) return ok(entries);
      const quoted = bad.map((entry) => JSON.stringify(entry)).join(', ');
      const what =
        bad.length === 1 ? `entry ${quoted} is not ${rule.one}` : `entries ${quoted} are not ${rule.many}`;
      return fail(`${what}; expected ${rule.expected}`);
    },
    print: (value) => value,
  };
}

const MAP_EXPECTED = 'comma-separated key:value pairs such as region:eu,tier:gpu';

/**
 * A string map: `key:value` pairs separated by commas, split on the first colon (values may hold colons).
 * For a secret setting, messages name entries by position and printing keeps the keys but hides the values.
 */
export function stringMap(): Codec<StringMap> {
  return {
    type: 'map',
    expected: MAP_EXPECTED,
    parse(raw, ctx) {
      const map: Record<string, string> = {};
      const problems: string[] = [];
      splitList(raw).forEach((entry, index) => {
        const name = ctx.secret ? `entry ${index + 1}` : `entry ${JSON.stringify(entry)}`;
        const colon = entry.indexOf(':');
        const key = entry.slice(0, colon).trim();
        if (colon < 0) problems.push(`${name} has no colon`);
        else if (key === '') problems.push(`${name} has an empty key`);
        else if (Object.hasOwn(map, key)) problems.push(`${name} repeats the key ${JSON.stringify(key)}`);
        else map[key] = entry.slice(colon + 1).trim();
      });
      return problems.length === 0 ? ok(map) : fail(`${problems.join(', ')}; expected ${MAP_EXPECTED}`);
    },
    print: (value) => value,
    redact: (value) => Object.fromEntries(Object.keys(value).map((key) => [key, REDACTED])),
  };
}
