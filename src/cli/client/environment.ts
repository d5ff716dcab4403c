import { intOption, repoArg, stringOption } from './args.js';
import type { Group, Verb, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table } from './output.js';

interface WireEnvironment {
  name: string;
  approvers: { users: string[]; teams: string[] };
  required_approvals: number;
  branches: string[];
  timeout: number;
}

const OPTIONS = {
  name: { type: 'string', help: 'the environment’s name, e.g. production' },
  approvers: {
    type: 'string',
    help: 'logins that may approve, comma-separated (empty: anyone with write access)',
  },
  teams: { type: 'string', help: 'provider teams that may approve, as org/slug, comma-separated' },
  approvals: { type: 'string', help: 'approvals by different people a deployment needs (0–5)' },
  branches: { type: 'string', help: 'globs of the branches that may deploy, comma-separated (empty: any)' },
  timeout: { type: 'string', help: 'minutes a deployment waits for approval before it is declined' },
} as const;

const environmentsPath = (context: VerbContext) => `${repoArg(context.positionals[0]).path}/environments`;

/** The environment's name: `--name`, or the argument after the repository. */
function nameOf(context: VerbContext): string {
  const name = stringOption(context.values, 'name') ?? context.positionals[1];
  if (name === undefined || name === '') throw new UsageError('missing the environment’s name (--name)');
  return name;
}

/** A comma-separated option as a list; `--branches ''` is the empty list. */
function list(context: VerbContext, option: string): string[] | undefined {
  const value = stringOption(context.values, option);
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The body of add and update: only what was given (the server applies its defaults). */
function bodyOf(context: VerbContext): Record<string, unknown> {
  const users = list(context, 'approvers');
  const teams = list(context, 'teams');
  const approvals = intOption(context.values, 'approvals');
  const timeout = intOption(context.values, 'timeout');
  const branches = list(context, 'branches');
  return {
    ...(users === undefined && teams === undefined
      ? {}
      : { approvers: { users: users ?? [], teams: teams ?? [] } }),
    ...(approvals === undefined ? {} : { required_approvals: approvals }),
    ...(branches === undefined ? {} : { branches }),
    ...(timeout === undefined ? {} : { timeout }),
  };
}

const approversText = (e: WireEnvironment) =>
  [...e.approvers.users, ...e.approvers.teams.map((t) => `team ${t}`)].join(', ') ||
  'anyone with write access';

const environmentTable = (environments: readonly WireEnvironment[]) =>
  environments.length === 0
    ? 'no environments\n'
    : table(
        ['NAME', 'APPROVALS', 'APPROVERS', 'BRANCHES', 'TIMEOUT'],
        environments.map((e) => [
          e.name,
          String(e.required_approvals),
          approversText(e),
          e.branches.join(', ') || 'any',
          `${e.timeout}m`,
        ]),
      );

const environmentDetails = (e: WireEnvironment) =>
  fields([
    ['Name', e.name],
    ['Approvals', e.required_approvals],
    ['Approvers', approversText(e)],
    ['Branches', e.branches.join(', ') || 'any'],
    ['Timeout', `${e.timeout} minutes`],
  ]);

const write = (method: 'post' | 'patch'): Verb => ({
  args: '<owner/name> [name]',
  summary:
    method === 'post' ? 'Adds an environment (repository admins)' : 'Changes an environment’s given fields',
  options: OPTIONS,
  async run(context) {
    const name = nameOf(context);
    const body = bodyOf(context);
    const answer =
      method === 'post'
        ? await context.api.post<WireEnvironment>(environmentsPath(context), { name, ...body })
        : await context.api.patch<WireEnvironment>(
            `${environmentsPath(context)}/${encodeURIComponent(name)}`,
            body,
          );
    show(context, answer, environmentDetails);
  },
});

export const environmentGroup: Group = {
  name: 'environment',
  summary:
    'Deployment environments of a repository: who approves, how many, which branches (docs/pipelines.md).',
  verbs: {
    ls: {
      args: '<owner/name>',
      summary: 'Lists the environments',
      async run(context) {
        show(context, await context.api.get<WireEnvironment[]>(environmentsPath(context)), environmentTable);
      },
    },
    info: {
      args: '<owner/name> <name>',
      summary: 'Shows an environment',
      options: { name: OPTIONS.name },
      async run(context) {
        const path = `${environmentsPath(context)}/${encodeURIComponent(nameOf(context))}`;
        show(context, await context.api.get<WireEnvironment>(path), environmentDetails);
      },
    },
    add: write('post'),
    update: write('patch'),
    rm: {
      args: '<owner/name> <name>',
      summary: 'Deletes an environment',
      options: { name: OPTIONS.name },
      async run(context) {
        const name = nameOf(context);
        await context.api.delete(`${environmentsPath(context)}/${encodeURIComponent(name)}`);
        if (!context.json) context.io.stdout(`environment ${name} deleted\n`);
      },
    },
  },
};
