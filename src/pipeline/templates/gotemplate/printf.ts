import { FuncError } from './funcs.js';
import { formatFloat, formatNumber, sprint, typeName, type GoValue } from './values.js';

/** Go's strconv.Quote: a double-quoted string with Go's escapes. */
export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\t') out += '\\t';
    else if (char === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char;
  }
  return `${out}"`;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  space: boolean;
  zero: boolean;
  sharp: boolean;
  width: number | undefined;
  precision: number | undefined;
}

/**
 * Go's fmt.Sprintf for the verbs templates use: %v %s %q %d %x %X %o %b %c %e %f %g %t %%, with
 * flags, width and precision; a value of the wrong kind is written as Go writes it
 * (`%!d(string=x)`), so are missing and extra arguments. A width or precision above `maxWidth` is refused.
 */
export function sprintf(format: string, args: readonly GoValue[], maxWidth: number): string {
  let out = '';
  let next = 0;
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf('%', i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    const match = /^%([-+ 0#]*)(\d+)?(?:\.(\d*))?(.)?/su.exec(format.slice(percent));
    const [whole = '%', flags = '', width, precision, verb] = match ?? [];
    i = percent + whole.length;
    if (verb === undefined) {
      out += '%!(NOVERB)';
      break;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    const spec: Spec = {
      minus: flags.includes('-'),
      plus: flags.includes('+'),
      space: flags.includes(' '),
      zero: flags.includes('0'),
      sharp: flags.includes('#'),
      width: width === undefined ? undefined : Number(width),
      precision: precision === undefined ? undefined : Number(precision || '0'),
    };
    if ((spec.width ?? 0) > maxWidth || (spec.precision ?? 0) > maxWidth)
      throw new FuncError(`the result would be larger than the limit of ${maxWidth} bytes`);
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    out += padded(formatOne(verb, args[next], spec), spec, verb);
    next++;
  }
  if (next < args.length) {
    const extra = args.slice(next).map((arg) => `${typeName(arg)}=${sprint(arg)}`);
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  return out;
}

function padded(text: string, spec: Spec, verb: string): string {
  if (spec.width === undefined || text.length >= spec.width) return text;
  if (spec.minus) return text.padEnd(spec.width, ' ');
  if (spec.zero && /[dfegxXob]/.test(verb)) {
    const sign = /^[+-]/.test(text) ? (text[0] ?? '') : '';
    return sign + text.slice(sign.length).padStart(spec.width - sign.length, '0');
  }
  return text.padStart(spec.width, ' ');
}

function bad(verb: string, value: GoValue): string {
  return `%!${verb}(${typeName(value)}=${sprint(value)})`;
}

function formatOne(verb: string, value: GoValue, spec: Spec): string {
  switch (verb) {
    case 'v':
      return sprint(value);
    case 's':
      if (typeof value === 'number' || typeof value === 'boolean') return bad(verb, value);
      return cut(sprint(value), spec.precision);
    case 'q':
      if (typeof value === 'string') return goQuote(value);
      if (typeof value === 'number' && Number.isInteger(value)) return `'${String.fromCodePoint(value)}'`;
      return bad(verb, value);
    case 't':
      return typeof value === 'boolean' ? String(value) : bad(verb, value);
    case 'c':
      return typeof value === 'number' && Number.isInteger(value)
        ? String.fromCodePoint(value)
        : bad(verb, value);
    case 'd':
    case 'x':
    case 'X':
    case 'o':
    case 'b':
      return integer(verb, value, spec);
    case 'e':
    case 'f':
    case 'F':
    case 'g':
      return float(verb, value, spec);
    default:
      return bad(verb, value);
  }
}

function cut(text: string, precision: number | undefined): string {
  return precision === undefined ? text : [...text].slice(0, precision).join('');
}

function integer(verb: string, value: GoValue, spec: Spec): string {
  if ((verb === 'x' || verb === 'X') && typeof value === 'string') {
    const hex = Buffer.from(value, 'utf8').toString('hex');
    return verb === 'X' ? hex.toUpperCase() : hex;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) return bad(verb, value);
  const base = { d: 10, x: 16, X: 16, o: 8, b: 2 }[verb] ?? 10;
  let text = BigInt(Math.abs(value)).toString(base);
  if (verb === 'X') text = text.toUpperCase();
  if (spec.sharp && verb === 'x') text = `0x${text}`;
  if (spec.sharp && verb === 'X') text = `0X${text}`;
  if (spec.sharp && verb === 'o') text = `0${text}`;
  const sign = value < 0 ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  return sign + text;
}

function float(verb: string, value: GoValue, spec: Spec): string {
  // An integral number is an int, which Go does not format as a float.
  if (typeof value !== 'number' || Number.isInteger(value)) return bad(verb, value);
  const precision = spec.precision ?? (verb === 'g' ? undefined : 6);
  let text: string;
  if (verb === 'g') {
    text = precision === undefined ? formatFloat(value, 'g') : trimG(value.toPrecision(precision || 1));
  } else if (verb === 'e') {
    text = goExponent(value.toExponential(precision));
  } else {
    text = Math.abs(value) >= 1e21 ? formatNumber(value) : value.toFixed(precision);
  }
  return (value >= 0 && spec.plus ? '+' : value >= 0 && spec.space ? ' ' : '') + text;
}

function goExponent(text: string): string {
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
}

function trimG(text: string): string {
  return goExponent(
    text.includes('e') ? text.replace(/\.?0+e/, 'e') : text.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''),
  );
}
