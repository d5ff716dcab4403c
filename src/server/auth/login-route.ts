import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SvcError } from '../../core/errors.js';
import type { SystemEvents } from '../../core/events.js';
import type { ScmProvider } from '../../core/scm.js';
import type { UserStore } from '../../core/user.js';
import { publicUrl, type ServerAddress } from '../web/address.js';
import { escapeHtml, HTML, htmlPage } from '../web/html.js';
import { admitUser, LoginRefused, type Admission } from './admit-user.js';
import { sameText, type SessionCookies } from './session-cookies.js';

/** What the login flow needs. `provider` is undefined when no git provider is configured. */
export interface LoginDeps {
  readonly provider:
    Pick<ScmProvider, 'authorizeUrl' | 'exchangeCode' | 'currentUser' | 'organizations'> | undefined;
  readonly users: Pick<UserStore, 'findLogin' | 'create' | 'update'>;
  readonly sessions: Pick<SessionCookies, 'startLogin' | 'loginState' | 'endLogin' | 'login'>;
  readonly admission: Admission;
  readonly server: ServerAddress;
  readonly now?: () => number;
  /** Told `user:created` when a login registers someone (global webhooks). */
  readonly events?: SystemEvents;
}

const LoginQuery = z.object({
  code: z.string().optional(),
  state: z.string().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/**
 * GET /login: the OAuth round trip with the git provider. Without `code`, redirects to the
 * provider's authorize page with a random `state` remembered in a signed, 10-minute cookie. With
 * `code` and `state` (the provider sending the user back): checks the state, exchanges the code,
 * creates or updates the account, sets the session cookie and redirects to `/`. Every failure is a
 * short HTML page that says what happened; details stay in the server log.
 */
export function loginRoute(app: FastifyInstance, deps: LoginDeps): void {
  app.get('/login', async (request, reply) => {
    const redirectUri = publicUrl(deps.server, '/login');
    const provider = deps.provider;
    if (provider === undefined) {
      return page(
        reply,
        503,
        'Login is not configured: this server has no git provider. The start page (/) lists the settings that enable login.',
      );
    }
    const query = LoginQuery.safeParse(request.query);
    if (!query.success) return page(reply, 400, 'The login request is malformed. Start again.');
    const { code, state, error, error_description: description } = query.data;
    if (error !== undefined) {
      return page(
        reply,
        403,
        `The git provider did not log you in: ${description ?? error}.`,
        deps.sessions.endLogin(),
      );
    }
    if (code === undefined) {
      const started = deps.sessions.startLogin();
      void reply.header('set-cookie', started.cookie);
      return reply.redirect(provider.authorizeUrl(started.state, redirectUri));
    }
    const expected = deps.sessions.loginState(request.headers.cookie);
    if (expected === undefined || state === undefined || !sameText(state, expected)) {
      return page(
        reply,
        400,
        'This login expired or was not started from this browser. Start again.',
        deps.sessions.endLogin(),
      );
    }
    try {
      const token = await provider.exchangeCode(code, redirectUri);
      const account = await provider.currentUser(token);
      const { user, created } = await admitUser(
        deps.users,
        account,
        token,
        deps.admission,
        (deps.now ?? Date.now)(),
        () => provider.organizations(token),
      );
      if (created) deps.events?.emit({ kind: 'user', action: 'created', user });
      request.log.info({ user: user.login }, 'login');
      void reply.header('set-cookie', [deps.sessions.endLogin(), ...deps.sessions.login(user)]);
      return reply.redirect('/');
    } catch (failure) {
      return refusal(request, reply, failure, deps.sessions.endLogin());
    }
  });
}

function refusal(
  request: FastifyRequest,
  reply: FastifyReply,
  failure: unknown,
  clear: string,
): FastifyReply {
  if (failure instanceof LoginRefused) {
    request.log.info({ reason: failure.message }, 'login refused');
    return page(reply, 403, failure.message, clear);
  }
  request.log.warn({ err: failure }, 'login failed at the git provider');
  // Provider errors are SvcErrors written for people (which call failed, and why); anything else
  // is a bug whose details belong in the log only.
  const why = failure instanceof SvcError ? failure.message : 'an unexpected error (see the server log)';
  return page(reply, 502, `Login failed: ${why}. Try again later.`, clear);
}

function page(reply: FastifyReply, status: number, message: string, cookie?: string): FastifyReply {
  if (cookie !== undefined) void reply.header('set-cookie', cookie);
  const body = `<h1>Login</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/login">Log in again</a> · <a href="/">Start page</a></p>`;
  return reply.status(status).type(HTML).send(htmlPage('svc: login', body));
}
