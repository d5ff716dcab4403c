import type { FastifyInstance } from 'fastify';
import type { SessionCookies } from './session-cookies.js';

/**
 * GET /logout: clears the session and CSRF cookies and goes back to the start page. Sessions are
 * stateless signed cookies; to end every session of an account at once, rotate its API token
 * (POST /api/user/token?rotate=true), which the session cookies are tied to.
 */
export function logoutRoute(
  app: FastifyInstance,
  deps: { readonly sessions: Pick<SessionCookies, 'logout'> },
): void {
  app.get('/logout', (_request, reply) => {
    void reply.header('set-cookie', deps.sessions.logout());
    return reply.redirect('/');
  });
}
