/** Routing for the forge doubles: a request context, replies, and `{name}` path patterns. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from './faults.js';

/** One request as the route handlers see it. */
export interface Context {
  method: string;
  /** The path below the API root (or the web root for OAuth pages). */
  path: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** The path's `{name}` parameters, decoded. */
  params: Record<string, string>;
  /** The login the request's credentials belong to; undefined for anonymous requests. */
  login: string | undefined;
}

/** What a handler answers. */
export interface Reply {
  status: number;
  body?: unknown;
  /** Sent as is instead of JSON (raw file contents, form-encoded OAuth answers, HTML). */
  text?: string;
  headers?: Record<string, string>;
}

export type Handler = (ctx: Context) => Reply;

/** A route: a method and a path pattern with `{name}` parameters; a trailing `{name+}` takes the rest. */
export interface Route {
  method: string;
  pattern: string;
  handler: Handler;
}

/** Finds the route for a request; `405`-free on purpose: forges answer unknown routes with 404. */
export function match(routes: readonly Route[], method: string, path: string) {
  const segments = path.split('/').filter((s) => s !== '');
  for (const route of routes) {
    if (route.method !== method) continue;
    const params = matchPattern(route.pattern, segments);
    if (params !== undefined) return { route, params };
  }
  return undefined;
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').filter((s) => s !== '');
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const rest = /^\{(\w+)\+\}$/.exec(part)?.[1];
    if (rest !== undefined) {
      if (i >= segments.length) return undefined;
      params[rest] = segments.slice(i).map(decode).join('/');
      return params;
    }
    const segment = segments[i];
    if (segment === undefined) return undefined;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name !== undefined) params[name] = decode(segment);
    else if (part !== segment) return undefined;
  }
  return parts.length === segments.length ? params : undefined;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The request body as JSON; undefined when absent or unreadable (handlers answer 400/422). */
export function jsonBody(ctx: Context): Record<string, unknown> | undefined {
  if (ctx.body.length === 0) return {};
  try {
    const value: unknown = JSON.parse(ctx.body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a reply: `text` as is (HTML unless a content type is given), `body` as JSON. */
export function sendReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload = '';
  if (reply.text !== undefined) {
    payload = reply.text;
    headers['content-type'] ??= 'text/html; charset=UTF-8';
  } else if (reply.body !== undefined) {
    payload = JSON.stringify(reply.body);
    headers['content-type'] = 'application/json; charset=UTF-8';
  }
  res.writeHead(reply.status, headers);
  res.end(payload);
}

/**
 * Reads a request's body, then answers it with `handle`'s reply — unless one of `faults`' rules
 * answers it with a failure first (Node discards a body left unread).
 */
export function listener(handle: (req: IncomingMessage, body: Buffer) => Reply, faults?: Faults) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (faults?.intercept(req, res) === true) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => sendReply(res, handle(req, Buffer.concat(chunks))));
  };
}

/** Stops a double's HTTP server: open connections (keep-alive, long polls) are cut, not waited for. */
export function closeServer(server: {
  closeAllConnections(): void;
  close(done: (err?: Error) => void): void;
}): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.closeAllConnections();
    server.close((err) => (err ? reject(err) : resolve()));
  });
}
