import type { FastifyInstance, FastifyReply } from 'fastify';
import { SvcError } from '../../core/errors.js';
import type { ScmPasswordLogin, ScmProvider } from '../../core/scm.js';
import { escapeHtml, htmlPage, sendHtml } from '../web/html.js';
import { scmTokenOf } from './scm-token.js';
import { finishLogin, loginFailure, loginPage, type LoginFinishDeps } from './login-finish.js';
import { sameText, type SessionCookies } from './session-cookies.js';

/** What the username/password login needs. */
export interface PasswordLoginDeps extends Omit<LoginFinishDeps, 'provider' | 'sessions'> {
  readonly provider: Pick<ScmProvider, 'currentUser' | 'organizations'> & { login: ScmPasswordLogin };
  readonly sessions: Pick<SessionCookies, 'startLogin' | 'loginState' | 'endLogin' | 'login'>;
}

/** Longest username and password taken: a form post is no way to send svc megabytes. */
const MAX_FIELD = 1024;

/**
 * GET /login shows a form for the provider's username and password; POST /login (form-encoded
 * `username`, `password` and the form's `state`) logs in through the provider. The state, kept in
 * the same signed cookie as OAuth's, keeps other sites from logging a browser in to an account of
 * theirs (login CSRF). A wrong password shows the form again, saying so.
 */
export function passwordLoginRoutes(app: FastifyInstance, deps: PasswordLoginDeps): void {
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4 * MAX_FIELD },
      (_request, body, parsed) => parsed(null, new URLSearchParams(String(body))),
    );
    scope.get('/login', (_request, reply) => form(reply, deps, 200));
    scope.post('/login', async (request, reply) => {
      const fields = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      const username = fields.get('username')?.trim() ?? '';
      const password = fields.get('password') ?? '';
      const expected = deps.sessions.loginState(request.headers.cookie);
      const state = fields.get('state') ?? '';
      if (expected === undefined || !sameText(state, expected)) {
        return form(
          reply,
          deps,
          400,
          'This login form expired or was not opened in this browser. Try again.',
        );
      }
      if (username === '' || password === '' || username.length > MAX_FIELD || password.length > MAX_FIELD) {
        return form(reply, deps, 400, 'Enter your username and your password.', username);
      }
      try {
        const known = await deps.users.findLogin(username);
        const token = await deps.provider.login.login(
          username,
          password,
          known === undefined ? undefined : scmTokenOf(known),
        );
        return await finishLogin(request, reply, deps, token);
      } catch (failure) {
        if (failure instanceof SvcError && failure.code === 'UNAUTHORIZED') {
          request.log.info({ username }, 'login refused: wrong username or password');
          return form(reply, deps, 401, 'Wrong username or password.', username);
        }
        const { status, message } = loginFailure(request, failure);
        return loginPage(reply, status, message, deps.sessions.endLogin());
      }
    });
    done();
  });
}

function form(reply: FastifyReply, deps: PasswordLoginDeps, status: number, error?: string, username = '') {
  const started = deps.sessions.startLogin();
  const body = [
    '<h1>Log in</h1>',
    `<p>With ${escapeHtml(deps.provider.login.account)}. svc keeps an access token of yours, not your password.</p>`,
    error === undefined ? '' : `<p role="alert"><strong>${escapeHtml(error)}</strong></p>`,
    '<form method="post" action="/login" class="login">',
    `<input type="hidden" name="state" value="${escapeHtml(started.state)}">`,
    `<p><label>Username <input name="username" autocomplete="username" required value="${escapeHtml(username)}"${username === '' ? ' autofocus' : ''}></label></p>`,
    `<p><label>Password <input name="password" type="password" autocomplete="current-password" required${username === '' ? '' : ' autofocus'}></label></p>`,
    '<p><button type="submit">Log in</button></p>',
    '</form>',
    '<p><a href="/">Start page</a></p>',
  ].join('\n');
  // The form carries a fresh state: never cache it.
  return sendHtml(
    reply.status(status).header('set-cookie', started.cookie).header('cache-control', 'no-store'),
    htmlPage('svc: log in', body),
  );
}
