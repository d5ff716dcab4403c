/* Test support for the HTTP fuzzing targets: what every answer to any input must be. */
import type { Answer, Sent } from './send.js';

/** What a 400's message may name: the input's parameter, query and body field names. */
export interface Named {
  /** Path parameter names, query keys and body field names (at any depth) the request carried. */
  readonly fields: readonly string[];
}

/**
 * Words that name the input as a whole, for refusals of the whole of it: a body that is not JSON,
 * a body of the wrong type (`input: expected object`), a path that is no route. A message that
 * quotes the request's path (a URL that does not decode) names it too.
 */
const WHOLE_INPUT = /\b(body|JSON|input|query|route|request|url|content[- ]type)\b/i;

/**
 * Throws, saying what is wrong, unless `answer` keeps the promise of svc's HTTP interfaces: never a
 * 5xx; every error of the JSON API is `{code, message}` with both filled; a 400's message names the
 * field it refuses (or the input as a whole). `bareStatuses` are errors answered without a body on
 * purpose (the runner protocol's 401 says nothing about the expected token).
 */
export function judge(sent: Sent, answer: Answer, named: Named, bareStatuses: readonly number[] = []): void {
  const what = `${sent.method} ${sent.url}${sent.body === undefined ? '' : ` with ${JSON.stringify(sent.body).slice(0, 300)}`}`;
  const said = `${answer.status} ${answer.text.slice(0, 500)}`;
  if (answer.status >= 500) throw new Error(`${what} answered ${said}`);
  if (answer.status < 400 || sent.method === 'HEAD' || bareStatuses.includes(answer.status)) return;
  const error = answer.json as { code?: unknown; message?: unknown } | undefined;
  if (
    typeof error !== 'object' ||
    error === null ||
    typeof error.code !== 'string' ||
    typeof error.message !== 'string' ||
    error.code === '' ||
    error.message.trim() === ''
  ) {
    throw new Error(`${what} answered an error that is not {code, message}: ${said}`);
  }
  if (answer.status !== 400) return;
  const message = error.message;
  const path = sent.url.split('?')[0] ?? sent.url;
  if (WHOLE_INPUT.test(message) || message.includes(path)) return;
  // An empty name (`?=x`) is named by its quotes.
  if (named.fields.some((field) => mentions(message, field === '' ? '""' : field))) return;
  throw new Error(`${what} was refused without naming the input: ${said}`);
}

/** Whether `message` has `field` as a word of its own (`number:` names `number`; `administrators` names no `admin`). */
function mentions(message: string, field: string): boolean {
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`).test(message);
}

/** Every key of a JSON value, at any depth: the names a refusal of a body field may use. */
export function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value as unknown[]) keysOf(item, into);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      into.push(key);
      keysOf(item, into);
    }
  }
  return into;
}
