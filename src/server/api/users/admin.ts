import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { SystemEvents } from '../../../core/events.js';
import type { User, UserStore } from '../../../core/user.js';
import type { Authenticator, Principal } from '../../auth/authenticator.js';
import { userJson } from '../json/user.js';
import { parseInput } from '../params.js';

/** What user administration needs. */
export interface UserAdminDeps {
  readonly auth: Pick<Authenticator, 'require'>;
  readonly users: Pick<UserStore, 'list' | 'findLogin' | 'create' | 'update' | 'delete'>;
  /** Told `user:created`, `user:updated` and `user:deleted` (global webhooks). */
  readonly events?: SystemEvents;
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

const UserPatch = z
  .object({ admin: z.boolean(), active: z.boolean(), machine: z.boolean() })
  .partial()
  .strict();

/**
 * User administration, as Drone's API has it, for svc administrators only: `GET /api/users`,
 * `POST /api/users`, `GET|PATCH|DELETE /api/users/{login}`. A new machine account's API token is
 * in the creation answer (only there); nobody else's token ever is. Administrators cannot remove
 * or demote themselves, so that a server always keeps one.
 */
export function userAdminRoutes(app: FastifyInstance, deps: UserAdminDeps): void {
  const admin = async (request: FastifyRequest): Promise<Principal> => {
    const principal = await deps.auth.require(request);
    if (!principal.user.admin) throw new ForbiddenError('only svc administrators may manage users');
    return principal;
  };
  const find = async (request: FastifyRequest): Promise<User> => {
    const { login } = parseInput(LoginParams, request.params);
    const user = await deps.users.findLogin(login);
    if (user === undefined) throw new NotFoundError(`user ${login}`);
    return user;
  };

  app.get('/api/users', async (request) => {
    await admin(request);
    return (await deps.users.list()).map(userJson);
  });

  app.post('/api/users', async (request) => {
    await admin(request);
    const body = parseInput(NewUserBody, request.body ?? {});
    const token = body.token ?? randomBytes(16).toString('hex');
    const user = await deps.users.create({
      login: body.login,
      email: body.email,
      avatar: body.avatar_url,
      admin: body.admin,
      machine: body.machine,
      active: body.active,
      token,
      scmToken: '',
      scmRefresh: '',
      scmExpiry: 0,
      lastLogin: 0,
    });
    deps.events?.emit({ kind: 'user', action: 'created', user });
    return { ...userJson(user), ...(user.machine ? { token } : {}) };
  });

  app.get('/api/users/:login', async (request) => {
    await admin(request);
    return userJson(await find(request));
  });

  app.patch('/api/users/:login', async (request) => {
    const principal = await admin(request);
    const user = await find(request);
    const patch = parseInput(UserPatch, request.body ?? {});
    if (user.id === principal.user.id && (patch.admin === false || patch.active === false)) {
      throw new InvalidInputError('administrators cannot demote or deactivate themselves');
    }
    const updated = await deps.users.update({ ...user, ...patch, updated: (deps.now ?? Date.now)() });
    deps.events?.emit({ kind: 'user', action: 'updated', user: updated });
    return userJson(updated);
  });

  app.delete('/api/users/:login', async (request, reply) => {
    const principal = await admin(request);
    const user = await find(request);
    if (user.id === principal.user.id) throw new InvalidInputError('administrators cannot delete themselves');
    await deps.users.delete(user.id);
    deps.events?.emit({ kind: 'user', action: 'deleted', user });
    return reply.code(204).send();
  });
}
