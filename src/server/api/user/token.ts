import { z } from 'zod';
import { ConflictError } from '../../../core/errors.js';
import type { UserStore } from '../../../core/user.js';
import { newApiToken } from '../../auth/api-token.js';
import { bearerToken } from '../../auth/authenticator.js';
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
 * POST /api/user/token: the caller's account with an API token (`token`), the one place the API
 * gives one out. svc keeps only the hash of a token, so it cannot show a stored token again:
 * - `?rotate=true` makes a new token, shown this once, which also ends every session of the
 *   account; a caller using the session cookie gets a fresh one, so rotating does not log it out.
 * - without it, a caller authenticated by its API token gets that token back, as Drone answers
 *   (Drone's CLI reads it here); a session has no token to give back: CONFLICT, saying to rotate.
 */
export function userTokenRoute(deps: TokenDeps): ApiRoute {
  return route({
    method: 'POST',
    path: '/api/user/token',
    access: USER,
    tag: 'user',
    summary: 'The caller’s account with its API token; ?rotate=true makes a new token, shown once',
    query: TokenQuery,
    response: { schema: userSchema, description: 'the account with `token`' },
    async handler({ principal, query, reply, request }) {
      if (!query.rotate) {
        const token = principal.via === 'token' ? bearerToken(request.headers.authorization) : undefined;
        if (token === undefined) {
          throw new ConflictError(
            'svc keeps only a hash of your API token and cannot show it again: POST /api/user/token?rotate=true makes a new one, shown once (the old one stops working)',
          );
        }
        return { ...userJson(principal.user), token };
      }
      const { token, hash } = newApiToken();
      const user = await deps.users.update({ ...principal.user, tokenHash: hash, updated: Date.now() });
      if (principal.via === 'session') void reply.header('set-cookie', deps.sessions.login(user));
      return { ...userJson(user), token };
    },
  });
}
