import { z } from 'zod';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { SystemEvents } from '../../../core/events.js';
import type { User, UserStore } from '../../../core/user.js';
import { hashApiToken, newApiToken } from '../../auth/api-token.js';
import { userJson } from '../json/user.js';
import { ADMIN, route, type ApiRoute } from '../route.js';
import { userSchema } from '../schemas.js';

/** What user administration needs. */
export interface UserAdminDeps {
  readonly users: Pick<UserStore, 'list' | 'findLogin' | 'create' | 'update' | 'delete'>;
  /** Told `user:created`, `user:updated` and `user:deleted` (global webhooks). */
  readonly events?: SystemEvents | undefined;
  readonly now?: () => number;
}

const LoginParams = z.object({ login: z.string().min(1) });

/** Drone's new user: a person (who then logs in through the provider) or a machine account. */
const NewUserBody = z
  .object({
    login: z.string().min(1).max(250),
    email: z.string().max(500).default(''),
    avatar_url: z.string().max(2000).default(''),
    admin: z.boolean().default(false),
    machine: z.boolean().default(false),
    active: z.boolean().default(true),
    /** A machine account's API token: exactly 32 characters; generated when absent. */
    token: z.string().length(32).optional(),
  })
  .strict();

/**
 * `login` (an svc addition) renames the account: how an administrator moves aside an account whose
 * name someone else now holds at the provider (account-match.ts says so at their login).
 */
const UserPatch = z
  .object({
    admin: z.boolean(),
    active: z.boolean(),
    machine: z.boolean(),
    login: z.string().min(1).max(250),
  })
  .partial()
  .strict();

/**
 * User administration, as Drone's API has it, for svc administrators only: `GET /api/users`,
 * `POST /api/users`, `GET|PATCH|DELETE /api/users/{login}`. A new machine account's API token is
 * in the creation answer (only there: svc keeps only its hash); nobody else's token ever is. A
 * person's account gets a token nobody sees: they make their own once logged in. Administrators
 * cannot remove or demote themselves, so that a server always keeps one.
 */
export function userAdminRoutes(deps: UserAdminDeps): ApiRoute[] {
  const find = async (login: string): Promise<User> => {
    const user = await deps.users.findLogin(login);
    if (user === undefined) throw new NotFoundError(`user ${login}`);
    return user;
  };
  const common = { access: ADMIN, tag: 'users' } as const;
  return [
    route({
      ...common,
      method: 'GET',
      path: '/api/users',
      summary: 'Every account',
      response: { schema: z.array(userSchema), description: 'the accounts' },
      handler: async () => (await deps.users.list()).map(userJson),
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/users',
      summary: 'Creates an account: a person, or a machine account (whose token is in the answer)',
      body: NewUserBody,
      response: { schema: userSchema, description: 'the account; `token` for machine accounts' },
      async handler({ body }) {
        const token = body.token ?? newApiToken().token;
        const user = await deps.users.create({
          login: body.login,
          email: body.email,
          avatar: body.avatar_url,
          admin: body.admin,
          machine: body.machine,
          active: body.active,
          tokenHash: hashApiToken(token),
          scmToken: '',
          scmRefresh: '',
          scmExpiry: 0,
          scmUid: '',
          lastLogin: 0,
        });
        deps.events?.emit({ kind: 'user', action: 'created', user });
        return { ...userJson(user), ...(user.machine ? { token } : {}) };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/users/:login',
      summary: 'One account',
      params: LoginParams,
      response: { schema: userSchema, description: 'the account' },
      handler: async ({ params }) => userJson(await find(params.login)),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/users/:login',
      summary: 'Changes an account’s admin, active and machine flags, or renames it',
      params: LoginParams,
      body: UserPatch,
      response: { schema: userSchema, description: 'the account as changed' },
      async handler({ params, body, principal }) {
        const user = await find(params.login);
        if (user.id === principal.user.id && (body.admin === false || body.active === false)) {
          throw new InvalidInputError(
            `${body.admin === false ? 'admin' : 'active'}: administrators cannot demote or deactivate themselves (${user.login})`,
          );
        }
        const updated = await deps.users.update({ ...user, ...body, updated: (deps.now ?? Date.now)() });
        deps.events?.emit({ kind: 'user', action: 'updated', user: updated });
        return userJson(updated);
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/users/:login',
      summary: 'Deletes an account',
      params: LoginParams,
      response: { status: 204, description: 'deleted' },
      async handler({ params, principal, reply }) {
        const user = await find(params.login);
        if (user.id === principal.user.id)
          throw new InvalidInputError(`login: administrators cannot delete themselves (${user.login})`);
        await deps.users.delete(user.id);
        deps.events?.emit({ kind: 'user', action: 'deleted', user });
        return reply.code(204).send();
      },
    }),
  ];
}
