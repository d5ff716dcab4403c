import type { z } from 'zod';
import type { SvcError } from '../core/errors.js';
import { providerFailure } from './errors.js';
import type { Transport, TransportResponse } from './transport.js';

/** Ends a pagination loop that a broken next-page link would never end: 1,000 pages. */
const MAX_PAGES = 1000;

/** How one provider's REST API is called: its name, root, headers and refusals. */
export interface RestApi {
  /** The provider's name in error messages (`GitHub`, `Gogs`, …). */
  readonly provider: string;
  /** The API root, without a trailing slash: paths are appended to it. */
  readonly root: string;
  readonly transport: Transport;
  /**
   * The headers of every call made with `credential` (authorization, accept, user agent). The call
   * itself is given for providers whose authorization signs it (OAuth 1.0a: method and URL).
   */
  headers(credential: string, call: { method: string; url: string }): Record<string, string>;
  /** A refusal (a status outside 2xx) as svc's error for the call. */
  refusal(call: string, response: TransportResponse): SvcError;
}

/**
 * The part of every provider's REST client that is the same: JSON in and out, the caller's
 * credential on every call, refusals and unreadable answers turned into SvcErrors naming the call.
 */
export class RestClient {
  readonly api: RestApi;

  constructor(api: RestApi) {
    this.api = api;
  }

  /** Calls `method path` and reads the answer with `schema`. */
  async json<S extends z.ZodType>(
    credential: string,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const response = await this.request(credential, method, `${this.api.root}${path}`, body);
    const what = callName(method, path);
    return this.check(what, this.readJson(what, response), schema);
  }

  /** Calls `method path` for its effect; the answer's body is not read. */
  async send(credential: string, method: string, path: string, body?: unknown): Promise<void> {
    await this.request(credential, method, `${this.api.root}${path}`, body);
  }

  /** One call to a full URL; answers only with a 2xx response, anything else is an SvcError. */
  async request(
    credential: string,
    method: string,
    url: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<TransportResponse> {
    const what = callName(method, new URL(url).pathname);
    const headers = { ...this.api.headers(credential, { method, url }), ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: TransportResponse;
    try {
      response = await this.api.transport({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw providerFailure(this.api.provider, what, reasonOf(error), error);
    }
    if (response.status >= 200 && response.status < 300) return response;
    throw this.api.refusal(what, response);
  }

  /**
   * Every item of a paged list, from `firstUrl` on: `nextUrl` reads the next page's URL off an
   * answer (a Link header, a page counter; it also gets the page's URL and how many items it had),
   * undefined on the last page.
   */
  async pages<S extends z.ZodType>(
    credential: string,
    firstUrl: string,
    itemSchema: S,
    nextUrl: (response: TransportResponse, url: string, count: number) => string | undefined,
  ): Promise<z.infer<S>[]> {
    const what = callName('GET', new URL(firstUrl).pathname);
    const items: z.infer<S>[] = [];
    let url: string | undefined = firstUrl;
    for (let page = 0; url !== undefined; page++) {
      if (page === MAX_PAGES) throw providerFailure(this.api.provider, what, `more than ${MAX_PAGES} pages`);
      const response = await this.request(credential, 'GET', url);
      const batch = this.readJson(what, response);
      if (!Array.isArray(batch)) throw providerFailure(this.api.provider, what, 'the answer is not a list');
      for (const raw of batch) items.push(this.check(what, raw, itemSchema));
      url = nextUrl(response, url, batch.length);
    }
    return items;
  }

  /** The answer's JSON; an answer that is not JSON is the provider's failure. */
  readJson(what: string, response: TransportResponse): unknown {
    try {
      return JSON.parse(response.text);
    } catch (error) {
      throw providerFailure(this.api.provider, what, 'the answer is not JSON', error);
    }
  }

  /** `value` read with `schema`; an answer of another shape is the provider's failure. */
  check<S extends z.ZodType>(what: string, value: unknown, schema: S): z.infer<S> {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const where = parsed.error.issues.map((issue) => issue.path.join('.') || 'the answer').join(', ');
      throw providerFailure(
        this.api.provider,
        what,
        `the answer does not have the documented shape (${where})`,
      );
    }
    return parsed.data;
  }
}

/** How error messages name a call: the method and the path without its query. */
export function callName(method: string, path: string): string {
  return `${method} ${path.split('?')[0] ?? path}`;
}

/** Fetch hides the reason (refused, TLS, DNS) in its error's cause. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * A next-page URL kept on the API's own origin: a server reached through another name than its own
 * writes its own name into Link headers, and the credential must not go there.
 */
export function onOrigin(next: string | undefined, api: string): string | undefined {
  if (next === undefined) return undefined;
  const target = new URL(next, api);
  const origin = new URL(api).origin;
  return target.origin === origin ? target.href : `${origin}${target.pathname}${target.search}`;
}
