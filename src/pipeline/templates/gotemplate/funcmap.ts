import { createHash } from 'node:crypto';
import { goJson, htmlEscape, htmlUnescape, queryEscape } from './escape.js';
import { FuncError, checkSize, type FuncContext, type GoFunc, type ParamType } from './funcs.js';
import { formatGoTime, goTimeString, parseGoTime } from './time.js';
import { formatFloat, GoTime, sprint, typeName, type GoValue } from './values.js';

/** drone/funcmap's toStringE: text, numbers and flags as text, nil as ''; anything else an error. */
function text(value: GoValue): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatFloat(value, 'f');
  if (value instanceof GoTime) return goTimeString(value.ms);
  throw new FuncError(`unable to cast ${sprint(value)} of type ${typeName(value)} to string`);
}

/** drone/funcmap's toTimeE: a time, a date in text, or epoch seconds. */
function time(value: GoValue): GoTime {
  if (value instanceof GoTime) return value;
  if (typeof value === 'string') {
    const ms = parseGoTime(value);
    if (ms === undefined) throw new FuncError(`unable to parse date: ${value}`);
    return new GoTime(ms);
  }
  if (typeof value === 'number' && Number.isInteger(value)) return new GoTime(value * 1000);
  throw new FuncError(`unable to cast ${sprint(value)} of type ${typeName(value)} to Time`);
}

const hash = (algorithm: string) => (v: GoValue) =>
  createHash(algorithm).update(text(v), 'utf8').digest('hex');

function fn(params: readonly ParamType[], call: (args: GoValue[], context: FuncContext) => GoValue): GoFunc {
  return { params, call };
}

const str1 = (call: (s: string) => GoValue) => fn(['any'], ([s]) => call(text(s)));
const withString = (call: (s: string, arg: string) => GoValue) =>
  fn(['any', 'string'], ([s, arg]) => call(text(s), arg as string));

function pad(left: boolean): GoFunc {
  return fn(['any', 'any', 'int'], ([s, padding, n], context) => {
    const [value, filler, count] = [text(s), text(padding), Math.max(0, n as number)];
    checkSize(value.length + filler.length * count, context);
    return left ? filler.repeat(count) + value : value + filler.repeat(count);
  });
}

/** Go's strings.Replace(s, old, new, -1): an empty `old` matches before each character and at the end. */
function replace(s: string, old: string, replacement: string, context: FuncContext): string {
  if (old === '') {
    const chars = [...s];
    checkSize(s.length + replacement.length * (chars.length + 1), context);
    return chars.map((c) => replacement + c).join('') + replacement;
  }
  const parts = s.split(old);
  checkSize(s.length + replacement.length * (parts.length - 1), context);
  return parts.join(replacement);
}

/** Go's strings.SplitN: n > 0 at most n parts, n == 0 none, n < 0 all; an empty sep splits characters. */
function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  const all = sep === '' ? [...s] : s.split(sep);
  if (n < 0 || all.length <= n) return all;
  return [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}

function base64Decode(s: string): string {
  const clean = /^[A-Za-z0-9+/]*={0,2}$/.test(s) && s.length % 4 === 0;
  if (!clean) {
    const bad = s.search(/[^A-Za-z0-9+/=]/);
    throw new FuncError(`illegal base64 data at input byte ${bad < 0 ? s.length : bad}`);
  }
  return Buffer.from(s, 'base64').toString('utf8');
}

function trimSet(s: string, cutset: string, left: boolean): string {
  const chars = [...s];
  const set = new Set(cutset);
  if (left) {
    let i = 0;
    while (i < chars.length && set.has(chars[i] ?? '')) i++;
    return chars.slice(i).join('');
  }
  let j = chars.length;
  while (j > 0 && set.has(chars[j - 1] ?? '')) j--;
  return chars.slice(0, j).join('');
}

/**
 * drone/funcmap's SafeFuncs as Drone renders YAML templates with them (the version Drone 2.x pins,
 * 2021-08-23): the same names, arguments and results. Times are in UTC.
 */
export const FUNCMAP: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['base64Decode', str1(base64Decode)],
  ['base64Encode', str1((s) => Buffer.from(s, 'utf8').toString('base64'))],
  ['chomp', str1((s) => s.replace(/[\r\n]+$/, ''))],
  ['contains', fn(['any', 'any'], ([s, sub]) => text(s).includes(text(sub)))],
  [
    'containsAny',
    fn(['any', 'any'], ([s, chars]) => {
      const set = new Set(text(chars));
      return [...text(s)].some((c) => set.has(c));
    }),
  ],
  ['dateFormat', fn(['string', 'any'], ([layout, v]) => formatGoTime(time(v).ms, layout as string))],
  ['htmlEscape', str1(htmlEscape)],
  ['htmlUnescape', str1(htmlUnescape)],
  ['hasPrefix', withString((s, prefix) => s.startsWith(prefix))],
  ['hasSuffix', withString((s, suffix) => s.endsWith(suffix))],
  ['jsonify', fn(['any'], ([v]) => goJson(v))],
  ['lower', str1((s) => s.toLowerCase())],
  ['md5', fn(['any'], ([v]) => hash('md5')(v))],
  ['now', fn([], (_args, context) => new GoTime(context.now()))],
  ['padLeft', pad(true)],
  ['padRight', pad(false)],
  [
    'replace',
    fn(['any', 'any', 'any'], ([s, old, replacement], context) =>
      replace(text(s), text(old), text(replacement), context),
    ),
  ],
  ['sha1', fn(['any'], ([v]) => hash('sha1')(v))],
  ['sha256', fn(['any'], ([v]) => hash('sha256')(v))],
  ['split', withString((s, sep) => splitN(s, sep, -1))],
  ['splitn', fn(['any', 'string', 'int'], ([s, sep, n]) => splitN(text(s), sep as string, n as number))],
  ['title', str1((s) => s.toUpperCase())],
  ['time', fn(['any'], ([v]) => time(v))],
  ['trimLeft', withString((s, cutset) => trimSet(s, cutset, true))],
  ['trimRight', withString((s, cutset) => trimSet(s, cutset, false))],
  ['trimPrefix', withString((s, prefix) => (s.startsWith(prefix) ? s.slice(prefix.length) : s))],
  [
    'trimSuffix',
    withString((s, suffix) => (suffix !== '' && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s)),
  ],
  ['trim', str1((s) => s.trim())],
  ['upper', str1((s) => s.toUpperCase())],
  ['urlize', str1((s) => queryEscape(s.trim().replaceAll(' ', '-')))],
]);
