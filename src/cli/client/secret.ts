import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defined, repoArg, stringOption } from './args.js';
import type { Group, Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table } from './output.js';

interface WireSecret {
  name: string;
  namespace?: string;
  pull_request: boolean;
  pull_request_push: boolean;
  environment?: string;
}

const ORG = {
  type: 'string',
  help: 'an organization secret of this namespace instead of a repository’s',
} as const;
const VALUE_OPTIONS = {
  org: ORG,
  name: { type: 'string', help: 'the secret’s name (letters, digits, _, -, .)' },
  data: { type: 'string', help: 'the value, or @FILE to read it from a file' },
  'allow-pull-request': { type: 'boolean', help: 'give it to pull request builds' },
  'allow-push-on-pull-request': { type: 'boolean', help: 'give it to pushes of pull request branches' },
  environment: {
    type: 'string',
    help: 'give it only to stages deploying to this environment, once approved ("" for any build)',
  },
} as const;

/** The secrets' API path: a repository's (first argument) or an organization's (`--org`). */
function secretsPath(context: VerbContext): { path: string; rest: readonly string[] } {
  const org = stringOption(context.values, 'org');
  if (org !== undefined)
    return { path: `/api/secrets/${encodeURIComponent(org)}`, rest: context.positionals };
  return { path: `${repoArg(context.positionals[0]).path}/secrets`, rest: context.positionals.slice(1) };
}

/** The secret's name: `--name`, or the argument after the repository. */
function nameOf(context: VerbContext): string {
  const name = stringOption(context.values, 'name') ?? secretsPath(context).rest[0];
  if (name === undefined || name === '') throw new UsageError('missing the secret’s name (--name)');
  return name;
}

/** `--data value` or `--data @file` (read relative to the working directory, as `drone` does). */
async function dataOf(context: VerbContext): Promise<string | undefined> {
  const data = stringOption(context.values, 'data');
  if (data === undefined || !data.startsWith('@')) return data;
  const file = resolve(context.io.cwd, data.slice(1));
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--data ${data}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
}

function flags(context: VerbContext): Record<string, unknown> {
  const flag = (name: string) => (context.values[name] === true ? true : undefined);
  return defined({
    pull_request: flag('allow-pull-request'),
    pull_request_push: flag('allow-push-on-pull-request'),
    environment: stringOption(context.values, 'environment'),
  });
}

const secretTable = (secrets: readonly WireSecret[]) =>
  secrets.length === 0
    ? 'no secrets\n'
    : table(
        ['NAME', 'PULL REQUESTS', 'PULL REQUEST PUSHES'],
        secrets.map((s) => [s.name, String(s.pull_request), String(s.pull_request_push)]),
      );

const secretDetails = (s: WireSecret) =>
  fields([
    ['Name', s.name],
    ...(s.namespace ? [['Namespace', s.namespace] as const] : []),
    ['Pull requests', s.pull_request],
    ['Pull request pushes', s.pull_request_push],
    ...(s.environment ? [['Environment', s.environment] as const] : []),
  ]);

const write = (method: 'post' | 'patch'): Verb => ({
  args:
    method === 'post' ? '<owner/name> | --org <namespace>' : '<owner/name> [name] | --org <namespace> [name]',
  summary: method === 'post' ? 'Adds a secret' : 'Changes a secret’s value or flags',
  options: VALUE_OPTIONS,
  async run(context) {
    const { path } = secretsPath(context);
    const name = nameOf(context);
    const data = await dataOf(context);
    if (method === 'post') {
      if (data === undefined) throw new UsageError('missing the value (--data)');
      show(
        context,
        await context.api.post<WireSecret>(path, { name, data, ...flags(context) }),
        secretDetails,
      );
    } else {
      const body = defined({ data, ...flags(context) });
      show(
        context,
        await context.api.patch<WireSecret>(`${path}/${encodeURIComponent(name)}`, body),
        secretDetails,
      );
    }
  },
});

export const secretGroup: Group = {
  name: 'secret',
  summary: 'Secrets of a repository, or of an organization with --org. Values are never shown.',
  verbs: {
    ls: {
      args: '<owner/name> | --org <namespace>',
      summary: 'Lists secrets',
      options: { org: ORG },
      async run(context) {
        show(context, await context.api.get<WireSecret[]>(secretsPath(context).path), secretTable);
      },
    },
    info: {
      args: '<owner/name> <name> | --org <namespace> <name>',
      summary: 'Shows a secret (not its value)',
      options: { org: ORG, name: VALUE_OPTIONS.name },
      async run(context) {
        const path = `${secretsPath(context).path}/${encodeURIComponent(nameOf(context))}`;
        show(context, await context.api.get<WireSecret>(path), secretDetails);
      },
    },
    add: write('post'),
    update: write('patch'),
    rm: {
      args: '<owner/name> <name> | --org <namespace> <name>',
      summary: 'Deletes a secret',
      options: { org: ORG, name: VALUE_OPTIONS.name },
      async run(context) {
        const name = nameOf(context);
        await context.api.delete(`${secretsPath(context).path}/${encodeURIComponent(name)}`);
        if (!context.json) context.io.stdout(`secret ${name} deleted\n`);
      },
    },
  },
};
