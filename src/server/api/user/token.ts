import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { UserStore } from '../../../core/user.js';
import type { SessionCookies } from '../../auth/session-cookies.js';
import { userJson } from '../json/user.js';
import { flagQuery } from '../params.js';
import { route, USER, type ApiRoute } from '../route.js';
import { userSchema } from '../schemas.js';

/** What the token route needs. */
export interface TokenDeps {
  readonly users: Pick<UserStore, 'update'>;
  readonly sessions: Pick<SessionCookies, 'login'>;
}

const TokenQuery = z.object({ rotate: flagQuery.describe('replace the token first') });

/**
 * POST /api/user/token: the caller's account with its API token (`token`), the one place the API
 * gives it out. `?rotate=true` replaces the token first, which also ends every session of the
 * account; a caller using the session cookie gets a fresh one, so rotating does not log it out.
 */
export function userTokenRoute(deps: TokenDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/user/token',
    access: USER,
    tag: 'user',
    summary: 'The caller’s account with its API token; ?rotate=true replaces the token',
    query: TokenQuery,
    response: { schema: userSchema, description: 'the account with `token`' },
    async handler({ principal, query, reply }) {
      let user = principal.user;
      if (query.rotate) {
        user = await deps.users.update({
          ...user,
          token: randomBytes(16).toString('hex'),
          updated: Date.now(),
        });
        if (principal.via === 'session') void reply.header('set-cookie', deps.sessions.login(user));
      }
      return { ...userJson(user), token: user.token };
    },
  });
}
