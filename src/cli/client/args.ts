import { UsageError } from './errors.js';
import type { VerbContext } from './command.js';

/** A repository argument `owner/name`, with its API path. */
export interface RepoArg {
  slug: string;
  path: string;
}

export function repoArg(value: string | undefined): RepoArg {
  if (value === undefined) throw new UsageError('missing the repository, as owner/name');
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(value);
  if (match === null) throw new UsageError(`"${value}" is not a repository: expected owner/name`);
  const [, owner = '', name = ''] = match;
  return { slug: value, path: `/api/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}` };
}

/** A required positional argument. */
export function required(context: VerbContext, index: number, what: string): string {
  const value = context.positionals[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

/** A build or stage number: a whole number from 1. */
export function numberArg(value: string | undefined, what: string): number {
  if (value === undefined) throw new UsageError(`missing ${what}`);
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new UsageError(`${what}: expected a number from 1, got "${value}"`);
  return number;
}

/** `-p KEY=VALUE` options (repeatable) as build parameters. */
export function paramsArg(values: VerbContext['values'], option = 'param'): Record<string, string> {
  const raw = values[option];
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  const params: Record<string, string> = {};
  for (const entry of list) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--${option} ${entry}: expected KEY=VALUE`);
    params[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return params;
}

/** A string option, or undefined. */
export function stringOption(values: VerbContext['values'], name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A `--flag true|false` option (so that `update` can turn a setting off), or undefined when absent. */
export function boolOption(values: VerbContext['values'], name: string): boolean | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new UsageError(`--${name}: expected true or false, got "${value}"`);
}

/** A whole-number option, or undefined. */
export function intOption(values: VerbContext['values'], name: string): number | undefined {
  const value = stringOption(values, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new UsageError(`--${name}: expected a whole number, got "${value}"`);
  return number;
}

/** Only the defined entries: what a PATCH should change. */
export function defined(entries: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
}
