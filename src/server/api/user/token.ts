import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { UserStore } from '../../../core/user.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { SessionCookies } from '../../auth/session-cookies.js';
import { userJson } from '../json/user.js';
import { flag } from '../params.js';

/** What the token route needs. */
export interface TokenDeps {
  readonly auth: Pick<Authenticator, 'require'>;
  readonly users: Pick<UserStore, 'update'>;
  readonly sessions: Pick<SessionCookies, 'login'>;
}

/**
 * POST /api/user/token: the caller's account with its API token (`token`), the one place the API
 * gives it out. `?rotate=true` replaces the token first, which also ends every session of the
 * account; a caller using the session cookie gets a fresh one, so rotating does not log it out.
 */
export function userTokenRoute(app: FastifyInstance, deps: TokenDeps): void {
  app.post('/api/user/token', async (request, reply) => {
    const principal = await deps.auth.require(request);
    let user = principal.user;
    if (flag(request.query, 'rotate')) {
      user = await deps.users.update({
        ...user,
        token: randomBytes(16).toString('hex'),
        updated: Date.now(),
      });
      if (principal.via === 'session') void reply.header('set-cookie', deps.sessions.login(user));
    }
    return { ...userJson(user), token: user.token };
  });
}
