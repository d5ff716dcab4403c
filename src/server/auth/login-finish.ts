import type { FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../core/errors.js';
import type { SystemEvents } from '../../core/events.js';
import type { ScmProvider, ScmToken } from '../../core/scm.js';
import type { User, UserStore } from '../../core/user.js';
import { scmTokenOf } from './scm-token.js';
import { escapeHtml, htmlPage, sendHtml } from '../web/html.js';
import { admitUser, LoginRefused, type Admission } from './admit-user.js';
import type { SessionCookies } from './session-cookies.js';

/** What finishing a login needs, whatever way the provider gave the token. */
export interface LoginFinishDeps {
  readonly provider: Pick<ScmProvider, 'currentUser' | 'organizations'>;
  readonly users: Pick<UserStore, 'findLogin' | 'findScmUid' | 'create' | 'update'>;
  readonly sessions: Pick<SessionCookies, 'endLogin' | 'login'>;
  readonly admission: Admission;
  readonly now?: () => number;
  /** Told `user:created` when a login registers someone (global webhooks). */
  readonly events?: SystemEvents;
}

/**
 * The common end of every login: the provider's account for the token, admitted (or refused) by
 * the registration settings, stored, and a session cookie; then the start page.
 */
export async function finishLogin(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: LoginFinishDeps,
  token: ScmToken,
): Promise<FastifyReply> {
  const account = await deps.provider.currentUser(token);
  // An account from before svc stored provider ids is the person's only if its own stored
  // credentials, when they still work, name the same person (account-match.ts).
  const storedUid = async (holder: User): Promise<string | undefined> => {
    try {
      return (await deps.provider.currentUser(scmTokenOf(holder))).uid || undefined;
    } catch (error) {
      request.log.info(
        { err: error, user: holder.login },
        'login: the account’s stored credentials no longer work',
      );
      return undefined;
    }
  };
  const { user, created } = await admitUser(
    deps.users,
    account,
    token,
    deps.admission,
    (deps.now ?? Date.now)(),
    () => deps.provider.organizations(token),
    storedUid,
  );
  if (created) deps.events?.emit({ kind: 'user', action: 'created', user });
  request.log.info({ user: user.login }, 'login');
  void reply.header('set-cookie', [deps.sessions.endLogin(), ...deps.sessions.login(user)]);
  return reply.redirect('/');
}

/** Why a login failed, for the person: a refusal in its words, a provider error, or "see the log". */
export function loginFailure(request: FastifyRequest, failure: unknown): { status: number; message: string } {
  if (failure instanceof LoginRefused) {
    request.log.info({ reason: failure.message }, 'login refused');
    return { status: 403, message: failure.message };
  }
  request.log.warn({ err: failure }, 'login failed at the git provider');
  // Provider errors are SvcErrors written for people (which call failed, and why); anything else
  // is a bug whose details belong in the log only.
  const why = failure instanceof SvcError ? failure.message : 'an unexpected error (see the server log)';
  return { status: 502, message: `Login failed: ${why}. Try again later.` };
}

/** A short login page that says what happened. */
export function loginPage(
  reply: FastifyReply,
  status: number,
  message: string,
  cookie?: string,
): FastifyReply {
  if (cookie !== undefined) void reply.header('set-cookie', cookie);
  const body = `<h1>Login</h1>\n<p>${escapeHtml(message)}</p>\n<p><a href="/login">Log in again</a> · <a href="/">Start page</a></p>`;
  return sendHtml(reply.status(status), htmlPage('svc: login', body));
}
