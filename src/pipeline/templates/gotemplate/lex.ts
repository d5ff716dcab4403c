import { GoTemplateError, type Where } from './errors.js';
import { ALNUM, character, number, quoted, word } from './literals.js';
import type { Token, TokenType } from './tokens.js';

export type { Token, TokenType } from './tokens.js';

const KEYWORDS = new Set([
  'block',
  'break',
  'continue',
  'define',
  'else',
  'end',
  'if',
  'range',
  'template',
  'with',
]);
const SPACE = /[ \t\r\n]/;
const TRIM = /[ \t\r\n]*$/;

/**
 * Splits a template into tokens: text between actions, and the words of each `{{ … }}`. Handles
 * Go's trim markers (`{{- ` eats the white space before, ` -}}` the white space after) and
 * comments (`{{/* … *\/}}`, which produce nothing). Positions are 1-based lines and columns.
 */
export function lex(source: string): Token[] {
  const tokens: Token[] = [];
  const lines = lineStarts(source);
  const where = (offset: number): Where => {
    let low = 0;
    let high = lines.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((lines[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - (lines[low] ?? 0) + 1 };
  };
  let at = 0;
  let trimNext = false;
  while (at < source.length) {
    const open = source.indexOf('{{', at);
    const end = open < 0 ? source.length : open;
    let text = source.slice(at, end);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, '');
    trimNext = false;
    if (open >= 0 && source[open + 2] === '-' && SPACE.test(source[open + 3] ?? '')) {
      text = text.replace(TRIM, '');
    }
    if (text !== '') tokens.push({ type: 'text', text, at: where(at) });
    if (open < 0) break;
    const action = lexAction(source, open, where);
    tokens.push(...action.tokens);
    trimNext = action.trimAfter;
    at = action.next;
  }
  tokens.push({ type: 'eof', text: '', at: where(source.length) });
  return tokens;
}

function lineStarts(source: string): number[] {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
  return starts;
}

/** One action from `{{` at `open`: its tokens, where the text after it starts, whether to trim it. */
function lexAction(
  source: string,
  open: number,
  where: (offset: number) => Where,
): { tokens: Token[]; next: number; trimAfter: boolean } {
  let i = open + 2;
  if (source[i] === '-' && SPACE.test(source[i + 1] ?? '')) i += 2;
  // A comment starts right after the delimiter (and its trim marker), as in Go.
  if (source.startsWith('/*', i)) return lexComment(source, open, i, where);
  const tokens: Token[] = [{ type: 'left', text: '{{', at: where(open) }];
  for (;;) {
    if (i >= source.length) throw new GoTemplateError(where(open), 'unclosed action');
    const right = closesAt(source, i);
    if (right !== undefined) {
      tokens.push({ type: 'right', text: '}}', at: where(i) });
      return { tokens, next: right.next, trimAfter: right.trim };
    }
    const token = lexWord(source, i, where);
    tokens.push(token.token);
    i = token.next;
  }
}

/** Whether the action closes at `i` (`}}`, or ` -}}` with a space before the dash). */
function closesAt(source: string, i: number): { next: number; trim: boolean } | undefined {
  if (source.startsWith('}}', i)) return { next: i + 2, trim: false };
  if (SPACE.test(source[i] ?? '')) {
    let j = i;
    while (SPACE.test(source[j] ?? '')) j++;
    if (source.startsWith('-}}', j)) return { next: j + 3, trim: true };
  }
  return undefined;
}

function lexComment(
  source: string,
  open: number,
  start: number,
  where: (offset: number) => Where,
): { tokens: Token[]; next: number; trimAfter: boolean } {
  const close = source.indexOf('*/', start + 2);
  if (close < 0) throw new GoTemplateError(where(open), 'unclosed comment');
  const after = closesAt(source, close + 2);
  if (after === undefined) throw new GoTemplateError(where(open), 'comment ends before closing delimiter');
  return { tokens: [], next: after.next, trimAfter: after.trim };
}

function lexWord(
  source: string,
  i: number,
  where: (offset: number) => Where,
): { token: Token; next: number } {
  const c = source[i] ?? '';
  const token = (type: TokenType, next: number, text = source.slice(i, next)) => ({
    token: { type, text, at: where(i) },
    next,
  });
  if (SPACE.test(c)) {
    let j = i;
    while (SPACE.test(source[j] ?? '')) j++;
    return token('space', j);
  }
  if (source.startsWith(':=', i)) return token('declare', i + 2);
  switch (c) {
    case '=':
      return token('assign', i + 1);
    case '|':
      return token('pipe', i + 1);
    case '(':
      return token('open', i + 1);
    case ')':
      return token('close', i + 1);
    case ',':
      return token('comma', i + 1);
    case '"':
      return quoted(source, i, where);
    case '`': {
      const close = source.indexOf('`', i + 1);
      if (close < 0) throw new GoTemplateError(where(i), 'unterminated raw quoted string');
      return token('string', close + 1, source.slice(i + 1, close));
    }
    case "'":
      return character(source, i, where);
    case '$': {
      const next = word(source, i + 1);
      return token('variable', next);
    }
    case '.': {
      if (/[0-9]/.test(source[i + 1] ?? '')) return number(source, i, where);
      const next = word(source, i + 1);
      return next === i + 1 ? token('dot', i + 1) : token('field', next);
    }
  }
  if (/[0-9+-]/.test(c)) return number(source, i, where);
  if (ALNUM.test(c)) {
    const next = word(source, i);
    const text = source.slice(i, next);
    if (text === 'true' || text === 'false') return token('bool', next);
    if (text === 'nil') return token('nil', next);
    return token(KEYWORDS.has(text) ? 'keyword' : 'identifier', next);
  }
  throw new GoTemplateError(where(i), `unexpected ${JSON.stringify(c)} in command`);
}
