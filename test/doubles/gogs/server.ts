import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import type { Faults } from '../forge/faults.js';
import { createServer as createHttpsServer } from 'node:https';
import { listener, match, type Context, type Reply } from '../forge/router.js';
import { empty, htmlNotFound, type Env, type GogsRoute } from './env.js';

/**
 * The double's HTTP(S) server: the API under `/api/v1`. Gogs reads `Authorization: token <token>`
 * (never `Bearer`) and, on the token endpoints only, HTTP Basic with the account's password. An
 * unknown token is an anonymous caller: 401 on routes that need a token.
 */
export function createServer(
  env: Env,
  routes: readonly GogsRoute[],
  tls?: { key: string; cert: string },
  faults?: Faults,
): Server {
  const handler = listener((req, body) => handle(env, routes, req, body), faults);
  return tls === undefined ? createHttpServer(handler) : createHttpsServer(tls, handler);
}

function handle(env: Env, routes: readonly GogsRoute[], req: IncomingMessage, body: Buffer): Reply {
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  const known = url.pathname.startsWith('/api/v1/') ? url.pathname.slice('/api/v1'.length) : undefined;
  const found = known === undefined ? undefined : match(routes, method, known);
  if (found === undefined || known === undefined) {
    env.unknown.push(`${method} ${url.pathname}`);
    return htmlNotFound();
  }
  const route = found.route as GogsRoute;
  const caller = callerOf(env, req.headers.authorization);
  if (route.auth === 'token' && caller?.via !== 'token') return empty(401);
  if (route.auth === 'basic' && caller?.via !== 'basic') return empty(401);
  const ctx: Context = {
    method,
    path: known,
    url,
    headers: req.headers,
    body,
    params: found.params,
    login: caller?.login,
  };
  return route.handler(ctx);
}

function callerOf(
  env: Env,
  header: string | undefined,
): { login: string; via: 'token' | 'basic' } | undefined {
  const token = /^token\s+(\S+)$/.exec(header ?? '')?.[1];
  if (token !== undefined) {
    const login = env.state.tokens.get(token);
    return login === undefined ? undefined : { login, via: 'token' };
  }
  const basic = /^Basic\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (basic === undefined) return undefined;
  const [login = '', ...rest] = Buffer.from(basic, 'base64').toString('utf8').split(':');
  const user = env.state.user(login);
  if (user === undefined || env.passwords.get(user.login.toLowerCase()) !== rest.join(':')) return undefined;
  return { login: user.login, via: 'basic' };
}
