import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { Faults } from '../forge/faults.js';
import { createServer as createHttpsServer } from 'node:https';
import { listener, match, type Context, type Reply } from '../forge/router.js';
import { error, notFound, type Env, type GiteaRoute } from './env.js';

/**
 * The double's HTTP(S) server: OAuth pages at the root, the API under `/api/v1`. Gitea reads
 * `Authorization: token <t>` and `Bearer <t>`; a token that is unknown or expired is refused with 401.
 */
export function createServer(
  env: Env,
  web: readonly GiteaRoute[],
  api: readonly GiteaRoute[],
  tls?: { key: string; cert: string },
  faults?: Faults,
): Server {
  const handler = listener((req, body) => handle(env, web, api, req, body), faults);
  return tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
}

function handle(
  env: Env,
  web: readonly GiteaRoute[],
  api: readonly GiteaRoute[],
  req: IncomingMessage,
  body: Buffer,
): Reply {
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  const base = { method, url, headers: req.headers, body, login: undefined };
  const page = match(web, method, url.pathname);
  if (page !== undefined) return page.route.handler({ ...base, path: url.pathname, params: page.params });
  const path = url.pathname.startsWith('/api/v1/') ? url.pathname.slice('/api/v1'.length) : undefined;
  const found = path === undefined ? undefined : match(api, method, path);
  if (found === undefined || path === undefined) {
    env.unknown.push(`${method} ${url.pathname}`);
    return notFound(env);
  }
  const ctx: Context = { ...base, path, params: found.params };
  const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (token !== undefined) {
    const login = loginOf(env, token);
    if (login === undefined) return error(env, 401, 'user does not exist [uid: 0, name: ]');
    ctx.login = login;
  } else if ((found.route as GiteaRoute).auth === 'token') {
    return error(env, 401, 'token is required');
  }
  return found.route.handler(ctx);
}

function loginOf(env: Env, token: string): string | undefined {
  const personal = env.state.tokens.get(token);
  if (personal !== undefined) return personal;
  const access = env.access.get(token);
  return access !== undefined && access.expires > env.now() ? access.login : undefined;
}
