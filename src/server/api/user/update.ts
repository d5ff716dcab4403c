import { z } from 'zod';
import type { SystemEvents } from '../../../core/events.js';
import type { UserStore } from '../../../core/user.js';
import { userJson } from '../json/user.js';
import { route, USER, type ApiRoute } from '../route.js';
import { userSchema } from '../schemas.js';

/** What changing one's own account needs. */
export interface UpdateUserDeps {
  readonly users: Pick<UserStore, 'update'>;
  /** Told `user:updated` (global webhooks). */
  readonly events?: SystemEvents | undefined;
}

/**
 * As in Drone, a user may change only their email address: the login and avatar come from the git
 * provider, the admin and active flags from svc administrators (PATCH /api/users/{login}).
 */
const UserPatch = z
  .object({ email: z.union([z.literal(''), z.email().max(500)]).describe('empty to remove it') })
  .partial()
  .strict();

/** PATCH /api/user: changes the caller's own account (its email address). */
export function updateUserRoute(deps: UpdateUserDeps): ApiRoute {
  return route({
    method: 'PATCH',
    path: '/api/user',
    access: USER,
    tag: 'user',
    summary: 'Changes the caller’s email address',
    body: UserPatch,
    response: { schema: userSchema, description: 'the account as changed' },
    async handler({ principal, body }) {
      if (body.email === undefined || body.email === principal.user.email) return userJson(principal.user);
      const user = await deps.users.update({ ...principal.user, email: body.email, updated: Date.now() });
      deps.events?.emit({ kind: 'user', action: 'updated', user });
      return userJson(user);
    },
  });
}
