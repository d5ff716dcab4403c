import type { FastifyInstance } from 'fastify';
import { loginRoute, type LoginDeps } from './login-route.js';
import { logoutRoute, type LogoutDeps } from './logout-route.js';
import type { SessionCookies } from './session-cookies.js';

export { Authenticator, CSRF_HEADER, type AuthenticatorDeps, type Principal } from './authenticator.js';
export { USER_FILTER_MESSAGE, type Admission } from './admit-user.js';
export type { LoginDeps } from './login-route.js';
export {
  CSRF_COOKIE,
  LOGIN_STATE_COOKIE,
  SESSION_COOKIE,
  SessionCookies,
  type Session,
  type SessionOptions,
} from './session-cookies.js';

/** What the login and logout routes need. */
export interface AuthRoutesDeps extends Omit<LoginDeps, 'sessions' | 'users'> {
  readonly sessions: SessionCookies;
  readonly users: LoginDeps['users'] & LogoutDeps['users'];
}

/** GET /login (the OAuth round trip with the git provider), and POST /logout (GET shows its button). */
export function registerAuthRoutes(app: FastifyInstance, deps: AuthRoutesDeps): void {
  loginRoute(app, deps);
  logoutRoute(app, deps);
}
export { scmTokenOf } from './scm-token.js';
