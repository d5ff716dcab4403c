/*
 * The HTTP side of the double: bearer-token check, body reading, dispatch over the route table, and the
 * answer — JSON with `Content-Type: application/json` (the JS client refuses a body without one), a
 * Kubernetes `Status` for every error, and 404 "the server could not find the requested resource" for
 * paths it does not know, which it also records.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError, methodNotAllowed, unauthorized, unknownPath } from './errors.js';

export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  /** The decoded path parameters of the route. */
  readonly params: string[];
  readonly contentType: string;
  /** The body as sent. */
  readonly text: string;
  readonly res: ServerResponse;
}

/** A JSON answer, or `streamed` when the handler wrote the response itself (watch, logs). */
export type Reply = { status: number; body: unknown } | 'streamed';
export type Handler = (request: ApiRequest) => Reply | Promise<Reply>;
export type Route = { pattern: RegExp; methods: Partial<Record<string, Handler>> };

export interface ServerOptions {
  token: string | undefined;
  routes: Route[];
  /** Called with `METHOD path?query` for every request the route table does not know. */
  onUnknown: (call: string) => void;
  /** Called with handler errors that are not Kubernetes errors (a bug of the double): answered 500. */
  onError: (error: unknown) => void;
}

export function createApiServer(options: ServerOptions): Server {
  return createServer((req, res) => {
    handle(options, req, res).catch((error: unknown) => {
      options.onError(error);
      if (!res.headersSent) sendJson(res, 500, internalError(error));
      else res.destroy();
    });
  });
}

async function handle(options: ServerOptions, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const url = new URL(req.url ?? '/', 'http://double');
  const method = req.method ?? 'GET';
  if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
    return sendError(res, unauthorized());
  }
  const path = url.pathname.replace(/\/+$/, '') || '/';
  let route: Route | undefined;
  let match: RegExpExecArray | null = null;
  for (const candidate of options.routes) {
    match = candidate.pattern.exec(path);
    if (match !== null) {
      route = candidate;
      break;
    }
  }
  const handler = route?.methods[method];
  if (route === undefined || match === null || handler === undefined) {
    options.onUnknown(`${method} ${url.pathname}${url.search}`);
    return sendError(res, route === undefined ? unknownPath() : methodNotAllowed());
  }
  const request: ApiRequest = {
    method,
    path,
    query: url.searchParams,
    params: match.slice(1).map((p) => decodeURIComponent(p ?? '')),
    contentType: (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '',
    text: Buffer.concat(chunks).toString('utf8'),
    res,
  };
  try {
    const reply = await handler(request);
    if (reply !== 'streamed') sendJson(res, reply.status, reply.body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    sendError(res, error);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendError(res: ServerResponse, error: ApiError): void {
  sendJson(res, error.status.code, error.status);
}

function internalError(error: unknown) {
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'InternalError',
    code: 500,
  };
}

/** Parses a JSON body; what does not parse is the API server's 400. */
export function jsonBody(request: ApiRequest, kind: string): unknown {
  try {
    return JSON.parse(request.text === '' ? 'null' : request.text) as unknown;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new ApiError({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `${kind} in version "v1" cannot be handled as a ${kind}: ${why}`,
      reason: 'BadRequest',
      code: 400,
    });
  }
}

/** A boolean query parameter as the API server reads it (`true`, `1`). */
export function queryFlag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value === 'true' || value === '1';
}
