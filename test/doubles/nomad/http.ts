/*
 * How Nomad's agent answers over HTTP (command/agent/http.go): JSON bodies with `Content-Type:
 * application/json` (indented with `?pretty`), errors as the bare message in text/plain with the coded
 * status, 500 for uncoded errors, blocking-query metadata headers, the ACL token from `X-Nomad-Token`
 * or `Authorization: Bearer`, and blocking queries: `index` and `wait` (Go duration, default 5 min,
 * at most 10 min, plus up to wait/16 of jitter) hold the answer until the watched index passes
 * `index`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NomadState } from './state.js';
import { MINUTE_NS, parseGoDuration } from './util.js';

export interface Reply {
  status: number;
  /** A JSON value, or a string sent as text/plain (errors). Undefined sends an empty body. */
  body?: unknown;
  /** Blocking-query metadata: X-Nomad-Index (and KnownLeader / LastContact). */
  index?: number;
  /** A write's answer: X-Nomad-Index only. */
  writeOnly?: boolean;
}

/** An error the agent answers with `status` and the plain-text `message`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly index?: number,
  ) {
    super(message);
  }
}

export const PERMISSION_DENIED = 'Permission denied';

export function send(res: ServerResponse, reply: Reply, pretty: boolean): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const headers: Record<string, string> = {};
  if (reply.index !== undefined) {
    headers['X-Nomad-Index'] = String(reply.index);
    if (reply.writeOnly !== true) {
      headers['X-Nomad-KnownLeader'] = 'true';
      headers['X-Nomad-LastContact'] = '0';
    }
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers).end();
  } else if (typeof reply.body === 'string' && reply.status >= 400) {
    res.writeHead(reply.status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' }).end(reply.body);
  } else {
    const text = pretty ? `${JSON.stringify(reply.body, null, 4)}\n` : JSON.stringify(reply.body);
    res.writeHead(reply.status, { ...headers, 'Content-Type': 'application/json' }).end(text);
  }
}

export const errorReply = (error: HttpError): Reply => ({
  status: error.status,
  body: error.message,
  ...(error.index === undefined ? {} : { index: error.index }),
});

/** http.go parseToken: X-Nomad-Token first, then a Bearer Authorization header. */
export function tokenOf(req: IncomingMessage): string | undefined {
  const header = req.headers['x-nomad-token'];
  const direct = Array.isArray(header) ? header[0] : header;
  if (direct !== undefined && direct.trim() !== '') return direct.trim();
  const authorization = req.headers.authorization;
  if (authorization === undefined) return undefined;
  const [scheme, ...rest] = authorization.split(' ');
  if (rest.length === 0 || scheme?.toLowerCase() !== 'bearer') return undefined;
  return rest.join(' ').trim().split(' ')[0];
}

/** With ACLs on: no token is anonymous (Permission denied), a wrong one is unknown (ACL token not found). */
export function checkToken(expected: string | undefined, req: IncomingMessage): void {
  if (expected === undefined) return;
  const given = tokenOf(req);
  if (given === undefined) throw new HttpError(403, PERMISSION_DENIED);
  if (given !== expected) throw new HttpError(403, 'ACL token not found');
}

/** strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False. */
export function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** http.go parseBool: an optional boolean query parameter (an error is uncoded: 500). */
export function boolParam(query: URLSearchParams, field: string): boolean | undefined {
  const text = query.get(field);
  if (text === null || text === '') return undefined;
  const value = parseGoBool(text);
  if (value === undefined) {
    throw new HttpError(
      500,
      `Failed to parse value of "${field}" (${text}) as a bool: strconv.ParseBool: parsing "${text}": invalid syntax`,
    );
  }
  return value;
}

/** The answer of a blocking read: its index and body, or an error that still carries the index. */
export interface Snapshot {
  index: number;
  body?: unknown;
  error?: string;
  status?: number;
}

const DEFAULT_WAIT_NS = 5 * MINUTE_NS;
const MAX_WAIT_NS = 10 * MINUTE_NS;

/**
 * Answers a read, blocking when the request carries `index`: `read` is evaluated again after every
 * state change until its index exceeds the requested one or the wait is over.
 */
export async function blockingRead(
  state: NomadState,
  query: URLSearchParams,
  signal: AbortSignal,
  read: () => Snapshot,
): Promise<Reply> {
  const waitText = query.get('wait') ?? '';
  const waitNs = waitText === '' ? DEFAULT_WAIT_NS : parseGoDuration(waitText);
  if (waitNs === undefined) throw new HttpError(400, 'Invalid wait time');
  const indexText = query.get('index') ?? '';
  const minIndex = indexText === '' ? 0 : Number(indexText);
  if (!/^\d*$/.test(indexText) || !Number.isSafeInteger(minIndex)) throw new HttpError(400, 'Invalid index');
  let snapshot = read();
  if (minIndex > 0) {
    const capped = waitNs <= 0 ? DEFAULT_WAIT_NS : Math.min(waitNs, MAX_WAIT_NS);
    const jittered = capped + Math.random() * (capped / 16);
    const deadline = Date.now() + jittered / 1_000_000;
    while (snapshot.index <= minIndex && !signal.aborted && Date.now() < deadline) {
      await state.nextChange(deadline - Date.now(), signal);
      snapshot = read();
    }
  }
  const index = Math.max(1, snapshot.index);
  if (snapshot.error !== undefined) return { status: snapshot.status ?? 404, body: snapshot.error, index };
  return { status: 200, body: snapshot.body, index };
}
