import { goTimeString } from './time.js';

/** A field of a Go struct: its Go name, its JSON name (`json:"…"`), and whether JSON omits it empty. */
export interface StructField {
  readonly name: string;
  readonly json: string;
  readonly omitEmpty?: boolean;
  readonly value: GoValue;
}

/** A Go struct value (Drone's drone.Build, drone.Repo): fields by Go name; a missing one is an error. */
export class GoStruct {
  readonly type: string;
  readonly fields: readonly StructField[];

  constructor(type: string, fields: readonly StructField[]) {
    this.type = type;
    this.fields = fields;
  }

  field(name: string): StructField | undefined {
    return this.fields.find((field) => field.name === name);
  }
}

/** A Go time.Time, in UTC, at millisecond precision. */
export class GoTime {
  readonly ms: number;

  constructor(ms: number) {
    this.ms = ms;
  }
}

/**
 * A value a template works with, as Go sees the data Drone gives it: `undefined` is Go's missing
 * value (a map key that is not there: it prints as `<no value>`), `null` is nil, integral numbers
 * are ints and others float64, arrays are []interface{}, plain objects map[string]interface{}.
 */
export type GoValue =
  | undefined
  | null
  | string
  | number
  | boolean
  | readonly GoValue[]
  | { readonly [key: string]: GoValue }
  | GoStruct
  | GoTime;

export type GoMap = { readonly [key: string]: GoValue };

export function isMap(value: GoValue): value is GoMap {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof GoStruct) &&
    !(value instanceof GoTime)
  );
}

/** The value's Go type, as messages name it. */
export function typeName(value: GoValue): string {
  if (value === undefined || value === null) return '<nil>';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float64';
  if (Array.isArray(value)) return '[]interface {}';
  if (value instanceof GoStruct) return value.type;
  if (value instanceof GoTime) return 'time.Time';
  return 'map[string]interface {}';
}

/** Go's truth of a value (`if`, `with`, `and`, `or`, `not`): empty, zero, nil and missing are false. */
export function isTrue(value: GoValue): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof GoStruct || value instanceof GoTime) return true;
  return Object.keys(value).length > 0;
}

/** What `{{ value }}` writes: `<no value>` for missing and nil values, as text/template does. */
export function printed(value: GoValue): string {
  return value === undefined || value === null ? '<no value>' : sprint(value);
}

/** Go's `%v` of a value. */
export function sprint(value: GoValue): string {
  if (value === undefined) return '<nil>';
  if (value === null) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return `[${value.map((item: GoValue) => sprint(item)).join(' ')}]`;
  if (value instanceof GoStruct) return `{${value.fields.map((field) => sprint(field.value)).join(' ')}}`;
  if (value instanceof GoTime) return goTimeString(value.ms);
  const map = value as GoMap;
  return `map[${sortedKeys(map)
    .map((key) => `${key}:${sprint(map[key])}`)
    .join(' ')}]`;
}

/** A map's keys in Go's order (sorted). */
export function sortedKeys(map: GoMap): string[] {
  return Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** An int in decimal; a float64 as Go's %v writes it (shortest digits, `e+06` from a million on). */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 2 ** 63) return BigInt(value).toString();
  return formatFloat(value, 'g');
}

/**
 * A float64 as Go's strconv.FormatFloat(v, fmt, -1, 64), shortest digits: `f` never uses an
 * exponent, `e` always, `g` when the exponent is below -4 or 6 and above (`1.2345675e+06`).
 */
export function formatFloat(value: number, format: 'f' | 'g' | 'e'): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  const exp = Number(exponent);
  const digits = mantissa.replace('-', '').replace('.', '');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const useE = format === 'e' || (format === 'g' && (exp < -4 || exp >= 6));
  if (useE) {
    const body = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp) < 10 ? `0${Math.abs(exp)}` : String(Math.abs(exp));
    return `${sign}${body}e${exp < 0 ? '-' : '+'}${e}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** Go's fmt.Sprint: operands side by side, a space between two that are both not strings. */
export function sprintArgs(values: readonly GoValue[]): string {
  let out = '';
  values.forEach((value, i) => {
    const previous = values[i - 1];
    if (i > 0 && typeof value !== 'string' && typeof previous !== 'string') out += ' ';
    out += sprint(value);
  });
  return out;
}
