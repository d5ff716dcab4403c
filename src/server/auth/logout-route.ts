import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { UserStore } from '../../core/user.js';
import { escapeHtml, htmlPage, sendHtml } from '../web/html.js';
import { sameText, type SessionCookies } from './session-cookies.js';

/** What logging out needs. */
export interface LogoutDeps {
  readonly sessions: Pick<SessionCookies, 'logout' | 'read' | 'belongsTo'>;
  readonly users: Pick<UserStore, 'find' | 'endSessions'>;
}

/**
 * POST /logout (form field `csrf`, or the X-CSRF-Token header) ends the session on the server: the
 * account's session generation moves on, so the cookie stops working even where a copy of it was
 * kept (another browser, a stolen one, a shared computer), on every server. It also clears the
 * cookies and goes back to the start page. GET /logout changes nothing: it shows a page with the
 * button that posts, so that old links and bookmarks still lead there, and no image or link on
 * another site can log anyone out.
 */
export function logoutRoute(app: FastifyInstance, deps: LogoutDeps): void {
  void app.register((scope, _options, done) => {
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, body, parsed) => parsed(null, new URLSearchParams(String(body))),
    );
    scope.get('/logout', (request, reply) => {
      const csrf = deps.sessions.read(request.headers.cookie)?.csrf;
      if (csrf === undefined) return reply.redirect('/');
      return page(reply, 200, 'Log out of svc on every browser where you are logged in?', csrf);
    });
    scope.post('/logout', async (request, reply) => {
      const session = deps.sessions.read(request.headers.cookie);
      if (session !== undefined) {
        if (!sameText(csrfOf(request), session.csrf))
          return page(reply, 403, 'This logout did not come from svc’s own page. Try again:', session.csrf);
        const user = await deps.users.find(session.userId);
        if (user !== undefined && deps.sessions.belongsTo(session, user)) {
          await deps.users.endSessions(user.id);
          request.log.info({ user: user.login }, 'logout: every session of the account ended');
        }
      }
      void reply.header('set-cookie', deps.sessions.logout());
      return reply.redirect('/', 303);
    });
    done();
  });
}

function csrfOf(request: FastifyRequest): string {
  const header = request.headers['x-csrf-token'];
  if (typeof header === 'string') return header;
  return request.body instanceof URLSearchParams ? (request.body.get('csrf') ?? '') : '';
}

function page(reply: FastifyReply, status: number, message: string, csrf: string): FastifyReply {
  const body = [
    '<h1>Log out</h1>',
    `<p>${escapeHtml(message)}</p>`,
    '<form method="post" action="/logout">',
    `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`,
    '<button type="submit">Log out</button>',
    '</form>',
    '<p><a href="/">Start page</a></p>',
  ].join('\n');
  return sendHtml(reply.status(status), htmlPage('svc: log out', body));
}
