import { boolOption, defined, required } from './args.js';
import type { Group, VerbContext } from './command.js';
import { UsageError } from './errors.js';
import { fields, show, table, when } from './output.js';

interface WireUser {
  login: string;
  email: string;
  admin: boolean;
  machine: boolean;
  active: boolean;
  last_login?: number;
  token?: string;
}

const userPath = (context: VerbContext) =>
  `/api/users/${encodeURIComponent(required(context, 0, 'the login'))}`;

const userTable = (users: readonly WireUser[]) =>
  table(
    ['LOGIN', 'EMAIL', 'ADMIN', 'MACHINE', 'ACTIVE', 'LAST LOGIN'],
    users.map((u) => [
      u.login,
      u.email,
      String(u.admin),
      String(u.machine),
      String(u.active),
      when(u.last_login),
    ]),
  );

const userDetails = (u: WireUser) =>
  fields([
    ['Login', u.login],
    ['Email', u.email],
    ['Admin', u.admin],
    ['Machine', u.machine],
    ['Active', u.active],
    ['Last login', when(u.last_login)],
    // Only in the answer that creates a machine account: the one chance to see its token.
    ...(u.token ? [['Token', u.token] as const] : []),
  ]);

const FLAGS = {
  admin: { type: 'string', help: 'true or false: an svc administrator' },
  active: { type: 'string', help: 'true or false: may log in and use the API' },
  machine: { type: 'string', help: 'true or false: a machine account (API token, no login)' },
} as const;

const RENAME = {
  login: { type: 'string', help: 'a new name for the account (e.g. to free a name someone else now holds)' },
} as const;

function flagFields(context: VerbContext): Record<string, unknown> {
  return defined({
    admin: boolOption(context.values, 'admin'),
    active: boolOption(context.values, 'active'),
    machine: boolOption(context.values, 'machine'),
  });
}

export const userGroup: Group = {
  name: 'user',
  summary: 'Accounts (administrators only).',
  verbs: {
    ls: {
      args: '',
      summary: 'Lists the accounts',
      async run(context) {
        show(context, await context.api.get<WireUser[]>('/api/users'), userTable);
      },
    },
    info: {
      args: '<login>',
      summary: 'Shows an account',
      async run(context) {
        show(context, await context.api.get<WireUser>(userPath(context)), userDetails);
      },
    },
    add: {
      args: '<login>',
      summary: 'Adds an account (--machine true: a machine account, whose token is shown once)',
      options: { ...FLAGS, email: { type: 'string', help: 'the email address' } },
      async run(context) {
        const body = {
          login: required(context, 0, 'the login'),
          ...defined({ email: context.values.email }),
          ...flagFields(context),
        };
        show(context, await context.api.post<WireUser>('/api/users', body), userDetails);
      },
    },
    update: {
      args: '<login>',
      summary: 'Changes an account',
      options: { ...FLAGS, ...RENAME },
      async run(context) {
        const body = { ...flagFields(context), ...defined({ login: context.values.login }) };
        if (Object.keys(body).length === 0)
          throw new UsageError('nothing to change: give --admin, --active, --machine or --login');
        show(context, await context.api.patch<WireUser>(userPath(context), body), userDetails);
      },
    },
    rm: {
      args: '<login>',
      summary: 'Deletes an account',
      async run(context) {
        await context.api.delete(userPath(context));
        if (!context.json) context.io.stdout(`user ${context.positionals[0]} deleted\n`);
      },
    },
  },
};
