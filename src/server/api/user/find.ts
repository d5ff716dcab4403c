import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.js';
import { userJson } from '../json/user.js';

/**
 * GET /api/user: the caller's account. Never the API token nor the provider's tokens. A caller
 * authenticated by the session cookie also gets `csrf`, the token its state-changing requests must
 * send in X-CSRF-Token.
 */
export function findUserRoute(
  app: FastifyInstance,
  deps: { readonly auth: Pick<Authenticator, 'require'> },
): void {
  app.get('/api/user', async (request) => {
    const principal = await deps.auth.require(request);
    return { ...userJson(principal.user), ...(principal.csrf === undefined ? {} : { csrf: principal.csrf }) };
  });
}
