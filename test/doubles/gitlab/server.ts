import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { listener, match, type Context, type Reply } from '../forge/router.js';
import type { Faults } from '../forge/faults.js';
import { message, type Env, type GitLabRoute } from './env.js';

/**
 * The double's HTTP(S) server: OAuth at the root, the API under `/api/v4`. OAuth tokens go in
 * `Authorization: Bearer` (personal tokens of `addUser` also in `PRIVATE-TOKEN`); an expired one is
 * 401 `invalid_token`. While the rate limit is exhausted every API call is 429 `Retry later` with
 * `RateLimit-Reset` and `Retry-After`.
 */
export function createServer(
  env: Env,
  web: readonly GitLabRoute[],
  api: readonly GitLabRoute[],
  tls?: { key: string; cert: string },
  faults?: Faults,
): Server {
  const handler = listener((req, body) => handle(env, web, api, req, body), faults);
  return tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
}

function handle(
  env: Env,
  web: readonly GitLabRoute[],
  api: readonly GitLabRoute[],
  req: IncomingMessage,
  body: Buffer,
): Reply {
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  const base = { method, url, headers: req.headers, body, login: undefined };
  const page = match(web, method, url.pathname);
  if (page !== undefined) return page.route.handler({ ...base, path: url.pathname, params: page.params });
  if (env.limitedUntil > env.now()) {
    const reset = Math.ceil(env.limitedUntil / 1000);
    return {
      status: 429,
      text: 'Retry later\n',
      headers: {
        'content-type': 'text/plain',
        'ratelimit-limit': '2000',
        'ratelimit-observed': '2001',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(reset),
        'ratelimit-resettime': new Date(reset * 1000).toUTCString(),
        'retry-after': String(Math.max(0, reset - Math.floor(env.now() / 1000))),
      },
    };
  }
  const path = url.pathname.startsWith('/api/v4/') ? url.pathname.slice('/api/v4'.length) : undefined;
  const found = path === undefined ? undefined : match(api, method, path);
  if (found === undefined || path === undefined) {
    env.unknown.push(`${method} ${url.pathname}`);
    return { status: 404, body: { error: '404 Not Found' } };
  }
  const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const personal = req.headers['private-token'];
  const token = bearer ?? (typeof personal === 'string' ? personal : undefined);
  if (token === undefined) return message(401, '401 Unauthorized');
  const oauth = bearer === undefined ? undefined : env.access.get(bearer);
  if (oauth !== undefined && oauth.expires <= env.now()) {
    return {
      status: 401,
      body: {
        error: 'invalid_token',
        error_description: 'Token is expired. You can either do re-authorization or token refresh.',
      },
    };
  }
  const login = oauth?.login ?? env.state.tokens.get(token);
  if (login === undefined) return message(401, '401 Unauthorized');
  const ctx: Context = { ...base, path, params: found.params, login };
  return found.route.handler(ctx);
}
