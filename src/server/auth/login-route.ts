import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ScmOAuth2Login, ScmProvider } from '../../core/scm.js';
import { publicUrl, type ServerAddress } from '../web/address.js';
import { finishLogin, loginFailure, loginPage, type LoginFinishDeps } from './login-finish.js';
import { oauth1Route } from './oauth1-login-route.js';
import { passwordLoginRoutes } from './password-login-route.js';
import { sameText, type SessionCookies } from './session-cookies.js';

/** What the login flow needs. `provider` is undefined when no git provider is configured. */
export interface LoginDeps extends Omit<LoginFinishDeps, 'provider' | 'sessions'> {
  readonly provider: Pick<ScmProvider, 'login' | 'currentUser' | 'organizations'> | undefined;
  readonly sessions: Pick<SessionCookies, 'startLogin' | 'loginState' | 'endLogin' | 'login'>;
  readonly server: ServerAddress;
}

const LoginQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

const NOT_CONFIGURED =
  'Login is not configured: this server has no git provider. The start page (/) lists the settings that enable login.';

/**
 * GET /login (and, for providers that log in with a password, POST /login): the login with the git
 * provider. Every failure is a short HTML page that says what happened; details stay in the log.
 */
export function loginRoute(app: FastifyInstance, deps: LoginDeps): void {
  const provider = deps.provider;
  if (provider === undefined) {
    app.get('/login', (_request, reply) => loginPage(reply, 503, NOT_CONFIGURED));
    return;
  }
  // The provider may be a class instance: its methods are bound here, not spread.
  const account = {
    currentUser: provider.currentUser.bind(provider),
    organizations: provider.organizations.bind(provider),
  };
  const login = provider.login;
  switch (login.kind) {
    case 'oauth2':
      oauth2Route(app, deps, { ...account, login });
      return;
    case 'password':
      passwordLoginRoutes(app, { ...deps, provider: { ...account, login } });
      return;
    case 'oauth1':
      oauth1Route(app, deps, { ...account, login });
      return;
  }
}

/**
 * The OAuth 2 round trip. Without `code`, redirects to the provider's authorize page with a random
 * `state` remembered in a signed, 10-minute cookie. With `code` and `state` (the provider sending the
 * user back): checks the state, exchanges the code, creates or updates the account, sets the session
 * cookie and redirects to `/`.
 */
function oauth2Route(
  app: FastifyInstance,
  deps: LoginDeps,
  provider: Pick<ScmProvider, 'currentUser' | 'organizations'> & { login: ScmOAuth2Login },
): void {
  app.get('/login', async (request, reply) => {
    const redirectUri = publicUrl(deps.server, '/login');
    const query = LoginQuery.safeParse(request.query);
    if (!query.success) return loginPage(reply, 400, 'The login request is malformed. Start again.');
    const { code, state, error, error_description: description } = query.data;
    if (error !== undefined) {
      return loginPage(
        reply,
        403,
        `The git provider did not log you in: ${description ?? error}.`,
        deps.sessions.endLogin(),
      );
    }
    if (code === undefined) {
      const started = deps.sessions.startLogin();
      void reply.header('set-cookie', started.cookie);
      return reply.redirect(provider.login.authorizeUrl(started.state, redirectUri));
    }
    const expected = deps.sessions.loginState(request.headers.cookie);
    if (expected === undefined || state === undefined || !sameText(state, expected)) {
      return loginPage(
        reply,
        400,
        'This login expired or was not started from this browser. Start again.',
        deps.sessions.endLogin(),
      );
    }
    try {
      const token = await provider.login.exchangeCode(code, redirectUri);
      return await finishLogin(request, reply, { ...deps, provider }, token);
    } catch (failure) {
      const { status, message } = loginFailure(request, failure);
      return loginPage(reply, status, message, deps.sessions.endLogin());
    }
  });
}
