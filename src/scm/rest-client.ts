import type { z } from 'zod';
import { SvcError } from '../core/errors.js';
import { providerFailure, ScmRateLimitError } from './errors.js';
import {
  DEFAULT_RETRY,
  retryAfterMs,
  safetyOf,
  sendWithRetries,
  type CallSafety,
  type RetryPolicy,
} from './retry.js';
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
  /** How failed calls are retried (DEFAULT_RETRY when absent; tests shorten it). */
  readonly retry?: RetryPolicy;
}

/** How one call may be retried; by default by its method (GET and HEAD are, others only when unprocessed). */
export interface CallOptions {
  readonly safety?: CallSafety;
}

/**
 * Posting a commit status is retried like a read: a second post of the same state for the same
 * context changes nothing a user sees (every provider shows the newest status per context).
 */
export const STATUS_CALL: CallOptions = { safety: 'idempotent' };

/**
 * The part of every provider's REST client that is the same: JSON in and out, the caller's
 * credential on every call, failures retried as the call's safety allows (retry.ts), refusals and
 * unreadable answers turned into SvcErrors naming the call.
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
    options: CallOptions = {},
  ): Promise<z.infer<S>> {
    const response = await this.request(credential, method, `${this.api.root}${path}`, body, {}, options);
    const what = callName(method, path);
    return this.check(what, this.readJson(what, response), schema);
  }

  /** Calls `method path` for its effect; the answer's body is not read. */
  async send(
    credential: string,
    method: string,
    path: string,
    body?: unknown,
    options: CallOptions = {},
  ): Promise<void> {
    await this.request(credential, method, `${this.api.root}${path}`, body, {}, options);
  }

  /**
   * One call to a full URL, retried as `options.safety` allows; answers only with a 2xx response,
   * anything else is an SvcError (saying how many attempts were made when more than one).
   */
  async request(
    credential: string,
    method: string,
    url: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<TransportResponse> {
    const what = callName(method, new URL(url).pathname);
    const payload = body === undefined ? {} : { body: JSON.stringify(body) };
    // Headers are made for each attempt: OAuth 1.0a signs every request with a fresh nonce.
    const send = () => {
      const headers = { ...this.api.headers(credential, { method, url }), ...extraHeaders };
      if (body !== undefined) headers['content-type'] = 'application/json';
      return this.api.transport({ method, url, headers, ...payload });
    };
    let outcome: { response: TransportResponse; attempts: number };
    try {
      outcome = await sendWithRetries(
        {
          policy: this.api.retry ?? DEFAULT_RETRY,
          safety: options.safety ?? safetyOf(method),
          waitAsked: (response) => this.#waitAsked(what, response),
        },
        send,
      );
    } catch (error) {
      throw providerFailure(this.api.provider, what, `${reasonOf(error)}${tries(error)}`, error);
    }
    const { response, attempts } = outcome;
    if (response.status >= 200 && response.status < 300) return response;
    throw afterAttempts(this.api.refusal(what, response), attempts);
  }

  /** The pause the provider asks for: its rate-limit reset (by its own rules), else Retry-After. */
  #waitAsked(what: string, response: TransportResponse): number | undefined {
    if (response.status < 400) return undefined;
    const refusal = this.api.refusal(what, response);
    if (refusal instanceof ScmRateLimitError) return Math.max(0, refusal.resetAt.getTime() - Date.now());
    return retryAfterMs(response);
  }

  /**
   * Every item of a paged list, from `firstUrl` on: `nextUrl` reads the next page's URL off an
   * answer (a Link header, a page counter; it also gets the page's URL and how many items it had),
   * undefined on the last page. With `upTo`, no page is read once more than that many items came:
   * the caller tells a list that long by its length.
   */
  async pages<S extends z.ZodType>(
    credential: string,
    firstUrl: string,
    itemSchema: S,
    nextUrl: (response: TransportResponse, url: string, count: number) => string | undefined,
    upTo = Number.POSITIVE_INFINITY,
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
      url = items.length > upTo ? undefined : nextUrl(response, url, batch.length);
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

/** The refusal, its message saying how many attempts were made when there were several. */
function afterAttempts(error: SvcError, attempts: number): SvcError {
  // A rate-limit refusal keeps its class: callers read its reset time.
  if (attempts === 1 || error instanceof ScmRateLimitError) return error;
  return new SvcError(error.code, `${error.message} (after ${attempts} attempts)`, { cause: error });
}

/** ` (after N attempts)` for a transport error that sendWithRetries made several attempts for. */
export function tries(error: unknown): string {
  const attempts =
    typeof error === 'object' && error !== null ? (error as { attempts?: unknown }).attempts : 1;
  return typeof attempts === 'number' && attempts > 1 ? ` (after ${attempts} attempts)` : '';
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
