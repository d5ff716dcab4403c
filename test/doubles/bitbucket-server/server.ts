/**
 * The double's HTTP(S) server: the OAuth dance under `/plugins/servlet/oauth/`, `GET
 * /plugins/servlet/applinks/whoami`, REST API 1.0 under `/rest/api/1.0` (`/rest/api/latest` is the
 * same), build statuses under `/rest/build-status/1.0`.
 *
 * Authentication: a request with `Authorization: OAuth …` must carry a valid RSA-SHA1 signature of
 * the consumer (see oauth-verify.ts) and an access token; an unknown token (or a request token) is
 * 401 `oauth_problem=token_rejected`, an expired one 401 `token_expired`, and one without a token
 * (2-legged OAuth, not enabled on the link) 401 `permission_denied`. These refusals come from the
 * OAuth filter in front of every servlet, so on REST paths too they are form-encoded
 * `oauth_problem=…` bodies with `WWW-Authenticate`, not the JSON error envelope (as Jira, on the same
 * Atlassian OAuth plugin, answers `401 oauth_problem=token_rejected` on its REST API). A request
 * without `Authorization` is anonymous. Every response to an authenticated request carries
 * `X-AUSERNAME` and `X-AUSERID`; every response carries `X-AREQUESTID`.
 *
 * Rate limiting (`exhaustRateLimit`): every `/rest/…` call of an authenticated or anonymous caller
 * answers 429 with `Retry-After` (seconds until the reset), `X-RateLimit-Limit: 60`,
 * `X-RateLimit-Remaining: 0`, `X-RateLimit-Interval-Seconds: 1`, `X-RateLimit-FillRate: 5` (the
 * header set of Atlassian Data Center rate limiting; 60 and 5 are Bitbucket's default bucket size and
 * refill rate) and the JSON error envelope. Unknown paths are 404 (REST: the envelope with Jersey's
 * "null for uri" message) and are recorded (`unknownCalls`).
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { Faults } from '../forge/faults.js';
import { createServer as createHttpsServer } from 'node:https';
import { listener, match, type Context, type Reply } from '../forge/router.js';
import { errors, type Env, type Route } from './env.js';
import { authorizationParams, oauthProblem, verifySigned } from './oauth-verify.js';
import { alnum } from './routes-oauth.js';

export function createServer(
  env: Env,
  oauth: readonly (Route & { signed: boolean })[],
  routes: readonly Route[],
  tls?: { key: string; cert: string },
  faults?: Faults,
): Server {
  const scheme = tls === undefined ? 'http' : 'https';
  const handler = listener((req, body) => {
    const { reply, login } = handle(env, oauth, routes, scheme, req, body);
    const user = login === undefined ? undefined : env.state.user(login);
    return {
      ...reply,
      headers: {
        ...reply.headers,
        'x-arequestid': `@${alnum(7).toUpperCase()}x${env.now() % 1000}x0`,
        ...(user === undefined ? {} : { 'x-ausername': user.login, 'x-auserid': String(user.id) }),
      },
    };
  }, faults);
  return tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
}

/** The whoami servlet: the caller's username as text, empty when anonymous. */
export const whoami: Route = {
  method: 'GET',
  pattern: '/plugins/servlet/applinks/whoami',
  handler: (ctx) => ({
    status: 200,
    text: ctx.login ?? '',
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
  }),
};

function handle(
  env: Env,
  oauth: readonly (Route & { signed: boolean })[],
  routes: readonly Route[],
  scheme: 'http' | 'https',
  req: IncomingMessage,
  body: Buffer,
): { reply: Reply; login?: string } {
  const url = new URL(req.url ?? '/', env.url);
  const method = req.method ?? 'GET';
  const path = url.pathname.replace(/^\/rest\/(api|build-status)\/latest\//, '/rest/$1/1.0/');
  const base = { method, url, path, headers: req.headers, body };
  const params = authorizationParams(req.headers.authorization);
  const dance = match(oauth, method, path);
  if (dance !== undefined) {
    if (oauth.find((r) => r === dance.route)?.signed === true) {
      const checked = verifySigned(env, req, scheme, body, params ?? new Map<string, string>());
      if (!checked.ok) return { reply: checked.reply };
    }
    return { reply: dance.route.handler({ ...base, params: dance.params, login: undefined }) };
  }
  let login: string | undefined;
  if (params !== undefined) {
    const checked = verifySigned(env, req, scheme, body, params);
    if (!checked.ok) return { reply: checked.reply };
    const token = params.get('oauth_token') ?? '';
    if (token === '') return { reply: oauthProblem(env, 'permission_denied') };
    const access = env.accessTokens.get(token);
    if (access === undefined) return { reply: oauthProblem(env, 'token_rejected') };
    if (access.expires <= env.now()) return { reply: oauthProblem(env, 'token_expired') };
    login = access.login;
  }
  const found = match(routes, method, path);
  if (found === undefined) {
    env.unknown.push(`${method} ${url.pathname}`);
    const reply = path.startsWith('/rest/')
      ? errors(404, `null for uri: ${env.url}${url.pathname}${url.search}`, null)
      : { status: 404, text: '<html><body><h1>Page not found</h1></body></html>' };
    return { reply, login };
  }
  if (path.startsWith('/rest/') && env.limitedUntil > env.now()) return { reply: rateLimited(env), login };
  const ctx: Context = { ...base, params: found.params, login };
  return { reply: found.route.handler(ctx), login };
}

function rateLimited(env: Env): Reply {
  const seconds = Math.max(1, Math.ceil((env.limitedUntil - env.now()) / 1000));
  return {
    ...errors(429, `You have been rate limited. Try again in ${seconds} seconds.`, null),
    headers: {
      'retry-after': String(seconds),
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-interval-seconds': '1',
      'x-ratelimit-fillrate': '5',
    },
  };
}
