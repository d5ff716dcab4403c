import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { Faults } from '../forge/faults.js';
import { listener, match, type Context, type Reply } from '../forge/router.js';
import { error, type BitbucketRoute, type Env } from './env.js';

/**
 * The double's server: OAuth at `/site/oauth2/…`, the REST API under `/2.0` (on one port: svc takes
 * both addresses from its settings). Bearer tokens; an expired one is 401 with Bitbucket's message;
 * while the rate limit is exhausted every API call is 429 with a plain-text body and no reset header.
 */
export function createServer(
  env: Env,
  web: readonly BitbucketRoute[],
  api: readonly BitbucketRoute[],
  faults?: Faults,
): Server {
  return createHttpServer(listener((req, body) => handle(env, web, api, req, body), faults));
}

function handle(
  env: Env,
  web: readonly BitbucketRoute[],
  api: readonly BitbucketRoute[],
  req: IncomingMessage,
  body: Buffer,
): Reply {
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  const base = { method, url, headers: req.headers, body, login: undefined };
  const page = match(web, method, url.pathname);
  if (page !== undefined) return page.route.handler({ ...base, path: url.pathname, params: page.params });
  const path = url.pathname.startsWith('/2.0/') ? url.pathname.slice('/2.0'.length) : undefined;
  const found = path === undefined ? undefined : match(api, method, path);
  if (found === undefined || path === undefined) {
    env.unknown.push(`${method} ${url.pathname}`);
    return error(404, 'Resource not found');
  }
  if (env.limitedUntil > env.now()) {
    return {
      status: 429,
      text: 'Rate limit for this resource has been exceeded',
      headers: { 'content-type': 'text/plain' },
    };
  }
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  const oauth = token === undefined ? undefined : env.access.get(token);
  if (oauth !== undefined && oauth.expires <= env.now()) {
    return error(401, 'OAuth2 access token expired. Use your refresh token to obtain a new access token.');
  }
  const login = oauth?.login ?? (token === undefined ? undefined : env.state.tokens.get(token));
  if (login === undefined) return error(401, 'Access token expired or invalid.');
  const ctx: Context = { ...base, path, params: found.params, login };
  return found.route.handler(ctx);
}
