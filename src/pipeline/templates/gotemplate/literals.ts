import { GoTemplateError, type Where } from './errors.js';
import type { Token } from './tokens.js';

/* The literals of actions: Go's quoted strings, characters and numbers. */

/** A letter, digit or `_`: what words are made of. */
export const ALNUM = /[\p{L}\p{Nd}_]/u;

/** Where the word (letters, digits, `_`) that starts at `i` ends. */
export function word(source: string, i: number): number {
  let j = i;
  while (ALNUM.test(source[j] ?? '')) j++;
  return j;
}

const ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

/** A Go interpreted string literal: the escapes of Go's strconv.Unquote. */
export function quoted(
  source: string,
  i: number,
  where: (offset: number) => Where,
): { token: Token; next: number } {
  let value = '';
  let j = i + 1;
  for (;;) {
    const c = source[j];
    if (c === undefined || c === '\n') throw new GoTemplateError(where(i), 'unterminated quoted string');
    if (c === '"') break;
    if (c !== '\\') {
      value += c;
      j++;
      continue;
    }
    const escaped = unescape(source, j, where);
    value += escaped.text;
    j = escaped.next;
  }
  return { token: { type: 'string', text: value, at: where(i) }, next: j + 1 };
}

function unescape(
  source: string,
  j: number,
  where: (offset: number) => Where,
): { text: string; next: number } {
  const e = source[j + 1] ?? '';
  const simple = ESCAPES[e];
  if (simple !== undefined) return { text: simple, next: j + 2 };
  const hex = (digits: number) => {
    const text = source.slice(j + 2, j + 2 + digits);
    if (!new RegExp(`^[0-9a-fA-F]{${digits}}$`).test(text))
      throw new GoTemplateError(where(j), `invalid escape \\${e}${text}`);
    return { text: String.fromCodePoint(parseInt(text, 16)), next: j + 2 + digits };
  };
  if (e === 'x') return hex(2);
  if (e === 'u') return hex(4);
  if (e === 'U') return hex(8);
  if (/[0-7]/.test(e)) {
    const text = source.slice(j + 1, j + 4);
    if (!/^[0-7]{3}$/.test(text)) throw new GoTemplateError(where(j), `invalid escape \\${text}`);
    return { text: String.fromCharCode(parseInt(text, 8)), next: j + 4 };
  }
  throw new GoTemplateError(where(j), `invalid escape \\${e}`);
}

export function character(
  source: string,
  i: number,
  where: (offset: number) => Where,
): { token: Token; next: number } {
  let j = i + 1;
  let value: string;
  if (source[j] === '\\') {
    const escaped = unescape(source, j, where);
    value = escaped.text;
    j = escaped.next;
  } else {
    const code = source.codePointAt(j);
    if (code === undefined || source[j] === "'")
      throw new GoTemplateError(where(i), 'empty character constant');
    value = String.fromCodePoint(code);
    j += value.length;
  }
  if (source[j] !== "'") throw new GoTemplateError(where(i), 'unterminated character constant');
  return {
    token: { type: 'char', text: String(value.codePointAt(0) ?? 0), at: where(i) },
    next: j + 1,
  };
}

/** A Go number: decimal, 0x/0o/0b integers, floats with exponents, underscores, a sign. */
export function number(
  source: string,
  i: number,
  where: (offset: number) => Where,
): { token: Token; next: number } {
  const match = /^[+-]?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(\d[\d_]*)?\.?\d*([eE][+-]?\d+)?)/.exec(
    source.slice(i),
  );
  const text = match?.[0] ?? '';
  const next = i + text.length;
  if (text === '' || text === '+' || text === '-' || ALNUM.test(source[next] ?? '')) {
    const bad = source.slice(i, word(source, next));
    throw new GoTemplateError(where(i), `bad number syntax: "${bad || source[i]}"`);
  }
  return { token: { type: 'number', text, at: where(i) }, next };
}

/** A Go number literal's value: integers in any base, floats; underscores between digits. */
export function numberOf(text: string, at: Where): number {
  const sign = text.startsWith('-') ? -1 : 1;
  const bare = text.replace(/^[+-]/, '').replaceAll('_', '');
  let value: number;
  if (/^0[xX]/.test(bare)) value = parseInt(bare.slice(2), 16);
  else if (/^0[oO]/.test(bare)) value = parseInt(bare.slice(2), 8);
  else if (/^0[bB]/.test(bare)) value = parseInt(bare.slice(2), 2);
  else if (/^0[0-7]+$/.test(bare)) value = parseInt(bare, 8);
  else value = Number(bare);
  if (!Number.isFinite(value)) throw new GoTemplateError(at, `illegal number syntax: "${text}"`);
  return sign * value;
}
