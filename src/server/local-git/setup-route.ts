import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { SvcError } from '../../core/errors.js';
import type { UserStore } from '../../core/user.js';
import { createAccount, MIN_PASSWORD } from '../../scm/local/forge-ops.js';
import type { LocalGitProvider } from '../../scm/local/provider.js';
import { finishLogin, type LoginFinishDeps } from '../auth/login-finish.js';
import { sameText } from '../auth/session-cookies.js';
import { escapeHtml, htmlPage, sendHtml } from '../web/html.js';

/** What making the first account needs. */
export interface SetupDeps extends LoginFinishDeps {
  readonly provider: LocalGitProvider;
  readonly users: LoginFinishDeps['users'] & Pick<UserStore, 'findLogin' | 'update'>;
}

/**
 * The built-in provider's first account (Jupyter's way): while it has no account, the server
 * prints a one-time link at start, `/setup?token=…`; whoever opens it chooses the administrator's
 * name and password, is logged in, and the link stops working. Returns the link's token (undefined
 * when there are accounts already) for the caller to print.
 */
export function setupRoutes(app: FastifyInstance, deps: SetupDeps): string | undefined {
  if (deps.provider.state.accounts().length > 0) return undefined;
  let token: string | undefined = randomBytes(24).toString('base64url');
  const valid = (given: unknown): boolean =>
    token !== undefined && typeof given === 'string' && sameText(given, token);
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, parsed) => parsed(null, new URLSearchParams(String(body))),
    );
    scope.get('/setup', (request, reply) => {
      const given = (request.query as { token?: string }).token;
      if (!valid(given)) return used(reply);
      return form(reply, 200, String(given));
    });
    scope.post('/setup', async (request, reply) => {
      const fields = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      const given = fields.get('token') ?? '';
      if (!valid(given)) return used(reply);
      const login = fields.get('login')?.trim() ?? '';
      const password = fields.get('password') ?? '';
      // Claimed before the account is made: two posts of the link at once make one account.
      const claimed = token;
      token = undefined;
      try {
        await createAccount(deps.provider, {
          login,
          password,
          admin: true,
          email: fields.get('email')?.trim() ?? '',
        });
      } catch (error) {
        token = claimed;
        if (error instanceof SvcError && (error.code === 'INVALID_INPUT' || error.code === 'CONFLICT'))
          return form(reply, 400, given, error.message, login);
        throw error;
      }
      request.log.info({ login }, 'built-in git provider: the administrator account was made');
      const scmToken = await deps.provider.login.login(login, password);
      await finishLogin(request, reply, deps, scmToken);
      // The server's administrator too: the first account set it up.
      const user = await deps.users.findLogin(login);
      if (user !== undefined && !user.admin) await deps.users.update({ ...user, admin: true });
      return reply;
    });
    done();
  });
  return token;
}

function used(reply: FastifyReply): FastifyReply {
  const body =
    '<h1>This setup link does not work</h1><p>It worked once, and the first account exists: <a href="/login">log in</a>.</p>';
  return sendHtml(reply.status(404).header('cache-control', 'no-store'), htmlPage('svc: setup', body));
}

function form(reply: FastifyReply, status: number, token: string, error?: string, login = ''): FastifyReply {
  const body = [
    '<h1>Welcome to svc</h1>',
    '<p>Choose the name and password of the first account. It administers svc and owns its first repositories; git takes the password, or an API token from your account page.</p>',
    error === undefined ? '' : `<p role="alert"><strong>${escapeHtml(error)}</strong></p>`,
    '<form method="post" action="/setup" class="login">',
    `<input type="hidden" name="token" value="${escapeHtml(token)}">`,
    `<p><label>Name <input name="login" autocomplete="username" required value="${escapeHtml(login)}" autofocus></label></p>`,
    `<p><label>Password <input name="password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD}" required></label></p>`,
    '<p><button type="submit">Create the account</button></p>',
    '</form>',
  ].join('\n');
  return sendHtml(reply.status(status).header('cache-control', 'no-store'), htmlPage('svc: setup', body));
}
