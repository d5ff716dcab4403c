import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ScmOAuth1Login, ScmProvider } from '../../core/scm.js';
import { publicUrl } from '../web/address.js';
import { finishLogin, loginFailure, loginPage } from './login-finish.js';
import type { LoginDeps } from './login-route.js';
import { sameText } from './session-cookies.js';

const CallbackQuery = z.object({
  state: z.string().optional(),
  oauth_token: z.string().optional(),
  oauth_verifier: z.string().optional(),
});

/**
 * The OAuth 1.0a round trip (Bitbucket Server). Without a verifier: asks the provider for a request
 * token whose callback is `/login?state=…` (a random state, remembered in the same signed 10-minute
 * cookie as OAuth 2's) and redirects to the provider's authorize page. With `oauth_token` and
 * `oauth_verifier` (the provider sending the user back): checks the state, exchanges the request
 * token for the access token, and finishes the login. A user who denied access (`oauth_verifier=
 * denied`) is told so.
 */
export function oauth1Route(
  app: FastifyInstance,
  deps: LoginDeps,
  provider: Pick<ScmProvider, 'currentUser' | 'organizations'> & { login: ScmOAuth1Login },
): void {
  app.get('/login', async (request, reply) => {
    const query = CallbackQuery.safeParse(request.query);
    if (!query.success) return loginPage(reply, 400, 'The login request is malformed. Start again.');
    const { state, oauth_token: requestToken, oauth_verifier: verifier } = query.data;
    if (verifier === undefined) {
      const started = deps.sessions.startLogin();
      const callback = `${publicUrl(deps.server, '/login')}?state=${encodeURIComponent(started.state)}`;
      try {
        const { authorizeUrl } = await provider.login.start(callback);
        void reply.header('set-cookie', started.cookie);
        return await reply.redirect(authorizeUrl);
      } catch (failure) {
        const { status, message } = loginFailure(request, failure);
        return loginPage(reply, status, message, deps.sessions.endLogin());
      }
    }
    const expected = deps.sessions.loginState(request.headers.cookie);
    if (
      expected === undefined ||
      state === undefined ||
      !sameText(state, expected) ||
      requestToken === undefined
    ) {
      return loginPage(
        reply,
        400,
        'This login expired or was not started from this browser. Start again.',
        deps.sessions.endLogin(),
      );
    }
    if (verifier === 'denied') {
      return loginPage(
        reply,
        403,
        'The git provider did not log you in: access to your account was denied.',
        deps.sessions.endLogin(),
      );
    }
    try {
      const token = await provider.login.exchange(requestToken, verifier);
      return await finishLogin(request, reply, { ...deps, provider }, token);
    } catch (failure) {
      const { status, message } = loginFailure(request, failure);
      return loginPage(reply, status, message, deps.sessions.endLogin());
    }
  });
}
