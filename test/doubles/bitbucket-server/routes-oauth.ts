/**
 * The OAuth 1.0a dance of an application link (Atlassian's service provider), below
 * `/plugins/servlet/oauth/`; the two POSTs are signed by the consumer (checked before these run):
 *
 * - `POST request-token`: needs `oauth_callback`, an absolute http(s) URL (absent: 400
 *   parameter_absent; anything else, `oob` included: 400 parameter_rejected with
 *   `oauth_parameters_rejected=oauth_callback`); answers text/plain
 *   `oauth_token=…&oauth_token_secret=…&oauth_callback_confirmed=true`. Request tokens live 10 minutes.
 * - `GET authorize?oauth_token=…`: the browser's page (HTML with Allow/Deny); the double-only
 *   `login=<user>` (and `deny=true`) decides at once and redirects (302) to the callback with
 *   `oauth_token` and `oauth_verifier` (6 alphanumerics, or `denied`) appended (`&` when the callback
 *   has a query). An unknown or expired token is a 401 HTML page.
 * - `POST access-token` with `oauth_token` (the request token) and `oauth_verifier`: single use;
 *   401 token_rejected (unknown or used), token_expired, permission_unknown (the user has not
 *   decided yet), permission_denied (denied, or a verifier that does not match); answers text/plain
 *   `oauth_token, oauth_token_secret, oauth_expires_in=157680000, oauth_session_handle,
 *   oauth_authorization_expires_in=160272000` (5 years; the session 5 years + 30 days).
 *
 * Not modelled: renewing through `oauth_session_handle`, token revocation, the login form itself.
 */
import { randomBytes } from 'node:crypto';
import type { Context, Reply } from '../forge/router.js';
import type { Env, Route } from './env.js';
import { authorizationParams, enc, oauthProblem } from './oauth-verify.js';

export const ACCESS_TTL_S = 157_680_000;
const SESSION_TTL_S = 160_272_000;
const REQUEST_TTL_MS = 600_000;

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` random alphanumerics (Atlassian's tokens are 32 of them). */
export function alnum(n: number): string {
  return [...randomBytes(n)].map((b) => ALNUM[b % ALNUM.length]).join('');
}

const form = (fields: Record<string, string>): Reply => ({
  status: 200,
  text: Object.entries(fields)
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&'),
  headers: { 'content-type': 'text/plain;charset=UTF-8' },
});

const page = (status: number, html: string): Reply => ({ status, text: `<html><body>${html}</body></html>` });

function requestToken(env: Env, ctx: Context): Reply {
  const callback = authorizationParams(ctx.headers.authorization)?.get('oauth_callback');
  if (callback === undefined || callback === '')
    return oauthProblem(env, 'parameter_absent', { oauth_parameters_absent: 'oauth_callback' });
  let absolute = false;
  try {
    absolute = ['http:', 'https:'].includes(new URL(callback).protocol);
  } catch {
    absolute = false;
  }
  if (!absolute)
    return oauthProblem(env, 'parameter_rejected', { oauth_parameters_rejected: 'oauth_callback' });
  const token = alnum(32);
  const secret = alnum(32);
  env.requestTokens.set(token, {
    secret,
    callback,
    expires: env.now() + REQUEST_TTL_MS,
    login: undefined,
    verifier: undefined,
  });
  return form({ oauth_token: token, oauth_token_secret: secret, oauth_callback_confirmed: 'true' });
}

function authorize(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const token = query.get('oauth_token') ?? '';
  const pending = env.requestTokens.get(token);
  if (pending === undefined || pending.expires <= env.now())
    return page(401, '<h1>The request token is invalid or has expired.</h1>');
  const login = query.get('login');
  if (login === null)
    return page(
      200,
      `<h1>Allow ${env.consumer.key} to access your account?</h1>` +
        `<form method="post"><input type="hidden" name="oauth_token" value="${token}">` +
        '<button name="approve">Allow</button><button name="deny">Deny</button></form>',
    );
  const user = env.state.user(login);
  if (user === undefined) return page(401, `<h1>No such user: ${login}</h1>`);
  pending.login = user.login;
  pending.verifier = query.get('deny') === 'true' ? 'denied' : alnum(6);
  const sep = pending.callback.includes('?') ? '&' : '?';
  const location = `${pending.callback}${sep}oauth_token=${enc(token)}&oauth_verifier=${enc(pending.verifier)}`;
  return { status: 302, headers: { location }, text: '' };
}

function accessToken(env: Env, ctx: Context): Reply {
  const oauth = authorizationParams(ctx.headers.authorization) ?? new Map<string, string>();
  const token = oauth.get('oauth_token') ?? '';
  const verifier = oauth.get('oauth_verifier') ?? '';
  const absent = [token === '' ? 'oauth_token' : '', verifier === '' ? 'oauth_verifier' : ''].filter(Boolean);
  if (absent.length > 0)
    return oauthProblem(env, 'parameter_absent', { oauth_parameters_absent: absent.join('&') });
  const pending = env.requestTokens.get(token);
  if (pending === undefined) return oauthProblem(env, 'token_rejected');
  if (pending.expires <= env.now()) {
    env.requestTokens.delete(token);
    return oauthProblem(env, 'token_expired');
  }
  if (pending.verifier === undefined || pending.login === undefined)
    return oauthProblem(env, 'permission_unknown');
  if (pending.verifier === 'denied' || verifier !== pending.verifier) {
    if (pending.verifier === 'denied') env.requestTokens.delete(token);
    return oauthProblem(env, 'permission_denied');
  }
  env.requestTokens.delete(token);
  return form(issueAccessToken(env, pending.login));
}

/** New token credentials for `login`: the form fields the access-token endpoint answers. */
export function issueAccessToken(env: Env, login: string): Record<string, string> {
  const token = alnum(32);
  const secret = alnum(32);
  const session = alnum(32);
  env.accessTokens.set(token, { secret, login, expires: env.now() + ACCESS_TTL_S * 1000, session });
  return {
    oauth_token: token,
    oauth_token_secret: secret,
    oauth_expires_in: String(ACCESS_TTL_S),
    oauth_session_handle: session,
    oauth_authorization_expires_in: String(SESSION_TTL_S),
  };
}

/** The three endpoints; `signed` says which ones the server must verify before calling them. */
export function oauthRoutes(env: Env): (Route & { signed: boolean })[] {
  const base = '/plugins/servlet/oauth';
  return [
    {
      method: 'POST',
      pattern: `${base}/request-token`,
      signed: true,
      handler: (ctx) => requestToken(env, ctx),
    },
    { method: 'GET', pattern: `${base}/authorize`, signed: false, handler: (ctx) => authorize(env, ctx) },
    {
      method: 'POST',
      pattern: `${base}/access-token`,
      signed: true,
      handler: (ctx) => accessToken(env, ctx),
    },
  ];
}
