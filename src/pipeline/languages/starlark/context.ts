import type { JsonValue } from '../../types.js';
import type { LanguageFacts } from '../types.js';
import type { DroneContext } from './protocol.js';

/** ctx.build's string fields, as Drone's starlark converter names them (plugin/converter/starlark/args.go). */
const BUILD_STRINGS = [
  'event',
  'action',
  'cron',
  'environment',
  'link',
  'branch',
  'source',
  'before',
  'after',
  'target',
  'ref',
  'commit',
  'title',
  'message',
  'source_repo',
  'author_login',
  'author_name',
  'author_email',
  'author_avatar',
  'sender',
] as const;

const REPO_STRINGS = [
  'uid',
  'name',
  'namespace',
  'slug',
  'git_http_url',
  'git_ssh_url',
  'link',
  'branch',
  'config',
  'visibility',
] as const;

const REPO_BOOLEANS = [
  'private',
  'active',
  'trusted',
  'protected',
  'ignore_forks',
  'ignore_pull_requests',
] as const;

/**
 * main's argument, field for field as Drone builds it: every field is present (Drone passes zero
 * values: '' and False), strings stay strings, flags are booleans, ctx.build.params is a dict.
 * The facts use Drone's names, the same in Jsonnet and Starlark.
 *
 * ctx.input: the `data:` of the `kind: template` document that loads a Starlark template, its
 * values typed (strings, numbers, booleans, lists, dicts), as Drone fills it; empty for a
 * .drone.star file. Build parameters are in ctx.build.params, as in Drone.
 */
export function droneContext(
  facts: LanguageFacts,
  input: Readonly<Record<string, JsonValue>> = {},
): DroneContext {
  const build: Record<string, string | boolean | Record<string, string>> = {};
  for (const field of BUILD_STRINGS) build[field] = text(facts.build[field]);
  build.debug = flag(facts.build.debug);
  build.params = { ...facts.params };

  const repo: Record<string, string | boolean> = {};
  for (const field of REPO_STRINGS) repo[field] = text(facts.repo[field]);
  for (const field of REPO_BOOLEANS) repo[field] = flag(facts.repo[field]);

  return { build, repo, input: { ...input } };
}

function text(value: string | number | boolean | undefined): string {
  return value === undefined ? '' : String(value);
}

/** A flag may arrive as a boolean or, like a Jsonnet ext var, as the text 'true'/'false'. */
function flag(value: string | number | boolean | undefined): boolean {
  if (typeof value === 'string') return value === 'true';
  return Boolean(value);
}
