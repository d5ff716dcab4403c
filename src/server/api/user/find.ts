import { userJson } from '../json/user.js';
import { route, USER, type ApiRoute } from '../route.js';
import { userSchema } from '../schemas.js';

/**
 * GET /api/user: the caller's account. Never the API token nor the provider's tokens. A caller
 * authenticated by the session cookie also gets `csrf`, the token its state-changing requests must
 * send in X-CSRF-Token.
 */
export function findUserRoute(): ApiRoute {
  return route({
    method: 'GET',
    path: '/api/user',
    access: USER,
    tag: 'user',
    summary: 'The caller’s account (and, with the session cookie, its CSRF token)',
    response: { schema: userSchema, description: 'the account' },
    handler: ({ principal }) =>
      Promise.resolve({
        ...userJson(principal.user),
        ...(principal.csrf === undefined ? {} : { csrf: principal.csrf }),
      }),
  });
}
