import { boolOption, defined, intOption, repoArg, stringOption } from './args.js';
import type { Group, OptionSpec, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table } from './output.js';

interface WireRepo {
  slug: string;
  active: boolean;
  private: boolean;
  visibility: string;
  default_branch: string;
  config_path: string;
  trusted: boolean;
  protected: boolean;
  timeout: number;
  throttle: number;
  counter: number;
  ignore_forks: boolean;
  ignore_pull_requests: boolean;
  auto_cancel_pull_requests: boolean;
  auto_cancel_pushes: boolean;
  auto_cancel_running: boolean;
  approval: string;
  fork_id_tokens?: boolean;
  permissions?: { read: boolean; write: boolean; admin: boolean };
}

const bool = (help: string): OptionSpec => ({ type: 'string', help: `true or false: ${help}` });

/** `svc repo update` flags, by the `drone repo update` names, and the API field each sets. */
const UPDATE: Record<string, { field: string; kind: 'bool' | 'int' | 'string'; spec: OptionSpec }> = {
  trusted: { field: 'trusted', kind: 'bool', spec: bool('privileged steps, host volumes, …') },
  protected: { field: 'protected', kind: 'bool', spec: bool('every build waits for approval unless signed') },
  timeout: { field: 'timeout', kind: 'int', spec: { type: 'string', help: 'build timeout in minutes' } },
  visibility: {
    field: 'visibility',
    kind: 'string',
    spec: { type: 'string', help: 'public, internal or private' },
  },
  config: {
    field: 'config_path',
    kind: 'string',
    spec: { type: 'string', help: 'the pipeline file’s path' },
  },
  throttle: {
    field: 'throttle',
    kind: 'int',
    spec: { type: 'string', help: 'running builds at most (0: no limit)' },
  },
  'ignore-forks': {
    field: 'ignore_forks',
    kind: 'bool',
    spec: bool('no builds for pull requests from forks'),
  },
  'ignore-pull-requests': {
    field: 'ignore_pull_requests',
    kind: 'bool',
    spec: bool('no builds for pull requests'),
  },
  'auto-cancel-pull-requests': {
    field: 'auto_cancel_pull_requests',
    kind: 'bool',
    spec: bool('a new pull request build cancels older pending ones'),
  },
  'auto-cancel-pushes': {
    field: 'auto_cancel_pushes',
    kind: 'bool',
    spec: bool('a new push build cancels older pending ones'),
  },
  'auto-cancel-running': { field: 'auto_cancel_running', kind: 'bool', spec: bool('… and running ones too') },
  'build-counter': {
    field: 'counter',
    kind: 'int',
    spec: { type: 'string', help: 'the last build number handed out' },
  },
  approval: {
    field: 'approval',
    kind: 'string',
    spec: { type: 'string', help: 'none, forks, pull_requests or all: builds that wait for approval' },
  },
  'fork-id-tokens': {
    field: 'fork_id_tokens',
    kind: 'bool',
    spec: bool('pull requests from forks get the OIDC tokens their steps ask for'),
  },
};

const repoTable = (repos: readonly WireRepo[]) =>
  repos.length === 0
    ? 'no repositories\n'
    : table(
        ['REPOSITORY', 'ACTIVE', 'VISIBILITY', 'BRANCH'],
        repos.map((r) => [r.slug, String(r.active), r.visibility, r.default_branch]),
      );

const repoDetails = (r: WireRepo) =>
  fields([
    ['Repository', r.slug],
    ['Active', r.active],
    ['Visibility', r.visibility],
    ['Default branch', r.default_branch],
    ['Config', r.config_path],
    ['Trusted', r.trusted],
    ['Protected', r.protected],
    ['Approval', r.approval],
    ['Fork ID tokens', r.fork_id_tokens ?? false],
    ['Timeout', `${r.timeout} minutes`],
    ['Throttle', r.throttle],
    ['Counter', r.counter],
    ['Ignore forks', r.ignore_forks],
    ['Ignore pull requests', r.ignore_pull_requests],
    ['Auto-cancel pull requests', r.auto_cancel_pull_requests],
    ['Auto-cancel pushes', r.auto_cancel_pushes],
    ['Auto-cancel running', r.auto_cancel_running],
  ]);

function changes(context: VerbContext): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, { field, kind }] of Object.entries(UPDATE)) {
    body[field] =
      kind === 'bool'
        ? boolOption(context.values, flag)
        : kind === 'int'
          ? intOption(context.values, flag)
          : stringOption(context.values, flag);
  }
  const changed = defined(body);
  if (Object.keys(changed).length === 0)
    throw new UsageError(`nothing to change: give at least one of --${Object.keys(UPDATE).join(', --')}`);
  return changed;
}

/** A verb that posts to a repository's path (or its sub-path) and shows the repository answered. */
const repoAction = (summary: string, method: 'post' | 'delete', sub = '') => ({
  args: '<owner/name>',
  summary,
  async run(context: VerbContext) {
    const path = `${repoArg(context.positionals[0]).path}${sub}`;
    const repo =
      method === 'post' ? await context.api.post<WireRepo>(path) : await context.api.delete<WireRepo>(path);
    show(context, repo, repoDetails);
  },
});

export const repoGroup: Group = {
  name: 'repo',
  summary: 'Repositories: list, enable, disable, change settings, repair the webhook, sync, chown.',
  verbs: {
    ls: {
      args: '',
      summary: 'Lists your repositories (--all: every repository svc knows; administrators)',
      options: {
        all: { type: 'boolean', help: 'every repository (administrators)' },
        active: { type: 'boolean', help: 'only enabled ones' },
      },
      async run(context) {
        const repos = await context.api.get<WireRepo[]>(
          context.values.all === true ? '/api/repos' : '/api/user/repos',
        );
        show(context, context.values.active === true ? repos.filter((r) => r.active) : repos, repoTable);
      },
    },
    info: {
      args: '<owner/name>',
      summary: 'Shows a repository and its settings',
      async run(context) {
        show(context, await context.api.get<WireRepo>(repoArg(context.positionals[0]).path), repoDetails);
      },
    },
    enable: repoAction('Enables builds (creates the webhook at the git provider)', 'post'),
    disable: repoAction('Disables builds (removes the webhook)', 'delete'),
    update: {
      args: '<owner/name>',
      summary: 'Changes repository settings',
      options: Object.fromEntries(Object.entries(UPDATE).map(([flag, { spec }]) => [flag, spec])),
      async run(context) {
        const path = repoArg(context.positionals[0]).path;
        show(context, await context.api.patch<WireRepo>(path, changes(context)), repoDetails);
      },
    },
    repair: repoAction('Creates the webhook at the git provider again', 'post', '/repair'),
    chown: repoAction('Makes you the repository’s owner (its builds use your credentials)', 'post', '/chown'),
    sync: {
      args: '',
      summary: 'Synchronizes your repositories from the git provider',
      async run(context) {
        show(context, await context.api.post<WireRepo[]>('/api/user/repos'), repoTable);
      },
    },
  },
};
