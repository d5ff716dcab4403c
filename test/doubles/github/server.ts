import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Faults } from '../forge/faults.js';
import type { Env } from './env.js';
import { error, match, type Context, type Reply, type Route } from './http.js';
import type { RateLimit } from './rate-limit.js';

/** A request the double received, for tests that check what svc called. */
export interface ReceivedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  /** The token the request carried; undefined when anonymous. */
  token: string | undefined;
}

export interface ServerParts {
  env: Env;
  /** The API's path prefix: `/api/v3` for GitHub Enterprise Server, empty for github.com. */
  apiPrefix: string;
  /** Also serve the API under `/api/v3` when the prefix is empty (a lenient github.com double). */
  alsoV3: boolean;
  web: Route[];
  api: Route[];
  rateLimit: RateLimit;
  received: ReceivedRequest[];
  /** Requests no route knew (`METHOD /path`). */
  unknown: string[];
  tls: { key: string; cert: string } | undefined;
  /** Requests answered with an injected failure instead (recorded in `received` too). */
  faults: Faults;
}

/** The double's HTTP(S) server: OAuth pages at the web root, the REST API under its prefix. */
export function createServer(parts: ServerParts): Server {
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (parts.faults.intercept(req, res)) {
        parts.received.push({
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          token: tokenOf(req.headers.authorization),
        });
        return;
      }
      const reply = handle(parts, req, Buffer.concat(chunks));
      send(res, reply);
    });
  };
  return parts.tls === undefined ? createHttpServer(listener) : createHttpsServer(parts.tls, listener);
}

function handle(parts: ServerParts, req: IncomingMessage, body: Buffer): Reply {
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  const token = tokenOf(req.headers.authorization);
  parts.received.push({ method, url: req.url ?? '/', token });
  const base: Omit<Context, 'path' | 'params'> = {
    method,
    url,
    headers: req.headers,
    body,
    login: undefined,
  };
  const web = match(parts.web, method, url.pathname);
  if (web !== undefined) return web.route.handler({ ...base, path: url.pathname, params: web.params });
  const apiPath = apiPathOf(parts, url.pathname);
  if (apiPath === undefined) {
    parts.unknown.push(`${method} ${url.pathname}`);
    return error(404, 'Not Found');
  }
  const limited = apiCall(parts, { ...base, path: apiPath, params: {} }, token);
  return { ...limited, headers: { ...parts.rateLimit.headers(), ...limited.headers } };
}

function apiCall(parts: ServerParts, ctx: Context, token: string | undefined): Reply {
  if (!parts.rateLimit.take()) {
    return error(403, 'API rate limit exceeded for user ID 1.');
  }
  if (token !== undefined) {
    const login = parts.env.state.tokens.get(token);
    if (login === undefined) return error(401, 'Bad credentials');
    ctx.login = login;
  }
  const found = match(parts.api, ctx.method, ctx.path);
  if (found === undefined) {
    parts.unknown.push(`${ctx.method} ${ctx.url.pathname}`);
    return error(404, 'Not Found');
  }
  return found.route.handler({ ...ctx, params: found.params });
}

function apiPathOf(parts: ServerParts, pathname: string): string | undefined {
  const prefixes = parts.apiPrefix !== '' ? [parts.apiPrefix] : parts.alsoV3 ? ['/api/v3', ''] : [''];
  for (const prefix of prefixes) {
    if (prefix === '') return pathname;
    if (pathname === prefix) return '/';
    if (pathname.startsWith(`${prefix}/`)) return pathname.slice(prefix.length);
  }
  return undefined;
}

/** GitHub takes `token X` and `Bearer X` (docs: rest/authentication/authenticating-to-the-rest-api). */
function tokenOf(header: string | undefined): string | undefined {
  return /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? '')?.[1];
}

function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload = '';
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/html; charset=utf-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  headers['x-github-media-type'] = 'github.v3; format=json';
  res.writeHead(reply.status, headers);
  res.end(payload);
}
