import { queryEscape, jsEscape, templateHtmlEscape } from './escape.js';
import { FuncError, checkSize, type GoFunc } from './funcs.js';
import { sprintf } from './printf.js';
import { isMap, isTrue, sprint, sprintArgs, typeName, type GoValue } from './values.js';

/** The value's kind for comparisons: Go compares only basic kinds, and only like with like. */
function basicKind(value: GoValue): 'bool' | 'number' | 'string' | 'missing' | 'other' {
  if (value === undefined || value === null) return 'missing';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'string') return 'string';
  return 'other';
}

function eq(args: GoValue[]): boolean {
  const [first, ...rest] = args;
  const k1 = basicKind(first);
  if (k1 === 'other') throw new FuncError('invalid type for comparison');
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  for (const other of rest) {
    const k2 = basicKind(other);
    if (k1 !== k2) {
      if (k1 !== 'missing' && k2 !== 'missing') throw new FuncError('incompatible types for comparison');
      continue;
    }
    if (k1 === 'missing' || first === other) return true;
  }
  return false;
}

function lt(a: GoValue, b: GoValue): boolean {
  const [k1, k2] = [basicKind(a), basicKind(b)];
  if (k1 === 'bool' || k1 === 'missing' || k1 === 'other') throw new FuncError('invalid type for comparison');
  if (k1 !== k2) throw new FuncError('incompatible types for comparison');
  return (a as number | string) < (b as number | string);
}

/** `html`, `js`, `urlquery` and `print` read one string argument as is, anything else as Sprint does. */
function joined(args: GoValue[]): string {
  const [only] = args;
  return args.length === 1 && typeof only === 'string' ? only : sprintArgs(args);
}

function index(args: GoValue[]): GoValue {
  let [item] = args;
  for (const key of args.slice(1)) {
    if (item === undefined || item === null) throw new FuncError('index of untyped nil');
    if (Array.isArray(item) || typeof item === 'string') {
      if (typeof key !== 'number' || !Number.isInteger(key))
        throw new FuncError(`cannot index slice/array with type ${typeName(key)}`);
      const length = typeof item === 'string' ? Buffer.byteLength(item) : item.length;
      if (key < 0 || key >= length) throw new FuncError(`index out of range: ${key}`);
      item = typeof item === 'string' ? (Buffer.from(item)[key] ?? 0) : (item as GoValue[])[key];
    } else if (isMap(item)) {
      if (typeof key !== 'string') throw new FuncError(`value has type ${typeName(key)}; should be string`);
      item = Object.hasOwn(item, key) ? item[key] : undefined;
    } else throw new FuncError(`can't index item of type ${typeName(item)}`);
  }
  return item;
}

function slice(args: GoValue[]): GoValue {
  const [item, ...bounds] = args;
  if (item === undefined || item === null) throw new FuncError('slice of untyped nil');
  if (bounds.length > 3) throw new FuncError(`too many slice indexes: ${bounds.length}`);
  if (!Array.isArray(item) && typeof item !== 'string')
    throw new FuncError(`can't slice item of type ${typeName(item)}`);
  if (typeof item === 'string' && bounds.length === 3) throw new FuncError('cannot 3-index slice a string');
  // Go slices a string by bytes, as len counts them.
  const bytes = typeof item === 'string' ? Buffer.from(item, 'utf8') : undefined;
  const length = bytes?.length ?? item.length;
  const numbers = bounds.map((bound) => {
    if (typeof bound !== 'number' || !Number.isInteger(bound))
      throw new FuncError(`cannot index slice/array with type ${typeName(bound)}`);
    if (bound < 0 || bound > length) throw new FuncError(`index out of range: ${bound}`);
    return bound;
  });
  const [from = 0, to = length] = numbers;
  if (from > to) throw new FuncError(`invalid slice index: ${from} > ${to}`);
  return bytes === undefined
    ? (item as readonly GoValue[]).slice(from, to)
    : bytes.toString('utf8', from, to);
}

function len(args: GoValue[]): GoValue {
  const [item] = args;
  if (item === undefined || item === null) throw new FuncError('len of nil pointer');
  if (typeof item === 'string') return Buffer.byteLength(item);
  if (Array.isArray(item)) return item.length;
  if (isMap(item)) return Object.keys(item).length;
  throw new FuncError(`len of type ${typeName(item)}`);
}

const any1 = (call: (value: GoValue) => GoValue): GoFunc => ({ params: ['any'], call: ([v]) => call(v) });
const compare = (call: (a: GoValue, b: GoValue) => boolean): GoFunc => ({
  params: ['any', 'any'],
  call: ([a, b]) => call(a, b),
});

/** Go's text/template builtins; `and` and `or` are evaluated lazily by the executor. */
export const BUILTINS: ReadonlyMap<string, GoFunc> = new Map<string, GoFunc>([
  ['and', { params: ['any'], variadic: 'any', call: () => undefined }],
  ['or', { params: ['any'], variadic: 'any', call: () => undefined }],
  ['not', any1((value) => !isTrue(value))],
  ['len', { params: ['any'], call: len }],
  ['index', { params: ['any'], variadic: 'any', call: index }],
  ['slice', { params: ['any'], variadic: 'any', call: slice }],
  ['print', { params: [], variadic: 'any', call: (args) => sprintArgs(args) }],
  ['println', { params: [], variadic: 'any', call: (args) => `${args.map((a) => sprint(a)).join(' ')}\n` }],
  [
    'printf',
    {
      params: ['string'],
      variadic: 'any',
      call: ([format, ...args], context) => {
        const text = sprintf(format as string, args, context.maxBytes);
        checkSize(text.length, context);
        return text;
      },
    },
  ],
  ['html', { params: [], variadic: 'any', call: (args) => templateHtmlEscape(joined(args)) }],
  ['js', { params: [], variadic: 'any', call: (args) => jsEscape(joined(args)) }],
  ['urlquery', { params: [], variadic: 'any', call: (args) => queryEscape(joined(args)) }],
  ['eq', { params: ['any'], variadic: 'any', call: eq }],
  ['ne', compare((a, b) => !eq([a, b]))],
  ['lt', compare(lt)],
  ['le', compare((a, b) => lt(a, b) || eq([a, b]))],
  ['gt', compare((a, b) => !lt(a, b) && !eq([a, b]))],
  ['ge', compare((a, b) => !lt(a, b))],
  [
    'call',
    {
      params: ['any'],
      variadic: 'any',
      call: ([fn]) => {
        throw new FuncError(`non-function of type ${typeName(fn)}`);
      },
    },
  ],
]);
