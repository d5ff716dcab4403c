import type { IncomingMessage } from 'node:http';

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
  /** The login the request's token belongs to; undefined for anonymous requests. */
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

/** Finds the route for a request; `405`-free on purpose: GitHub answers unknown routes with 404. */
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

const DOCS = 'https://docs.github.com/rest';

/** GitHub's error body: `message` and `documentation_url`, plus validation `errors` for 422. */
export function error(status: number, message: string, errors?: unknown[]): Reply {
  return {
    status,
    body: { message, documentation_url: DOCS, ...(errors ? { errors } : {}), status: String(status) },
  };
}

export const notFound = (): Reply => error(404, 'Not Found');

/** 422 Validation Failed with one error, as GitHub reports bad input. */
export function invalid(resource: string, field: string, message: string): Reply {
  return error(422, 'Validation Failed', [{ resource, field, code: 'custom', message }]);
}

/** A request body that is not a JSON object, as GitHub answers it. */
export const badJson = (): Reply => error(400, 'Problems parsing JSON');

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

/**
 * A page of a list with GitHub's pagination (docs: rest/using-the-rest-api/using-pagination-in-the-rest-api):
 * `per_page` (default 30, at most 100) and `page`, and a `Link` header with first/prev/next/last.
 */
export function paginate<T>(ctx: Context, items: readonly T[], apiUrl: string): Reply {
  const perPage = Math.min(100, Math.max(1, Number(ctx.url.searchParams.get('per_page') ?? 30) || 30));
  const page = Math.max(1, Number(ctx.url.searchParams.get('page') ?? 1) || 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number) => {
    const query = new URLSearchParams(ctx.url.searchParams);
    query.set('per_page', String(perPage));
    query.set('page', String(n));
    return `<${apiUrl}${ctx.path}?${query.toString()}>`;
  };
  const rels: string[] = [];
  if (page > 1) rels.push(`${link(page - 1)}; rel="prev"`);
  if (page < last) rels.push(`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`);
  if (page > 1) rels.push(`${link(1)}; rel="first"`);
  return {
    status: 200,
    body: items.slice((page - 1) * perPage, page * perPage),
    headers: rels.length === 0 ? {} : { link: rels.join(', ') },
  };
}
