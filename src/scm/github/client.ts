import type { z } from 'zod';
import { providerFailure } from '../errors.js';
import { nextLink } from '../pagination.js';
import type { Transport, TransportResponse } from '../transport.js';
import { GITHUB, githubError } from './errors.js';

/** GitHub's largest page (docs: rest/using-the-rest-api/using-pagination-in-the-rest-api). */
const PER_PAGE = 100;
/** Ends a pagination loop that a broken Link header would never end: 100,000 items. */
const MAX_PAGES = 1000;

/**
 * The REST API as svc uses it: JSON in and out, the user's token on every call, GitHub's refusals
 * turned into SvcErrors, lists followed through their `Link` pages.
 */
export class GitHubClient {
  readonly #api: string;
  readonly #transport: Transport;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    this.#transport = transport;
  }

  /** Calls `method path` and reads the answer with `schema`. */
  async json<S extends z.ZodType>(
    token: string,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const response = await this.#send(token, method, `${this.#api}${path}`, body);
    return check(callName(method, path), readJson(callName(method, path), response), schema);
  }

  /** Calls `method path` for its effect; the answer's body is not read. */
  async send(token: string, method: string, path: string, body?: unknown): Promise<void> {
    await this.#send(token, method, `${this.#api}${path}`, body);
  }

  /** The raw bytes of a file as text (`application/vnd.github.raw`), for files too large for JSON. */
  async raw(token: string, path: string): Promise<string> {
    const response = await this.#send(
      token,
      'GET',
      `${this.#api}${path}`,
      undefined,
      'application/vnd.github.raw',
    );
    return response.text;
  }

  /** Every item of a list, following `rel="next"` links from `per_page=100` pages. */
  async list<S extends z.ZodType>(token: string, path: string, itemSchema: S): Promise<z.infer<S>[]> {
    const what = callName('GET', path);
    const separator = path.includes('?') ? '&' : '?';
    let url: string | undefined = `${this.#api}${path}${separator}per_page=${PER_PAGE}`;
    const items: z.infer<S>[] = [];
    for (let page = 0; url !== undefined; page++) {
      if (page === MAX_PAGES) throw providerFailure(GITHUB, what, `more than ${MAX_PAGES} pages`);
      const response = await this.#send(token, 'GET', url);
      const batch = readJson(what, response);
      if (!Array.isArray(batch)) throw providerFailure(GITHUB, what, 'answer is not a list');
      for (const raw of batch) items.push(check(what, raw, itemSchema));
      url = this.#sameServer(nextLink(response.header('link')));
    }
    return items;
  }

  async #send(
    token: string,
    method: string,
    url: string,
    body?: unknown,
    accept = 'application/vnd.github+json',
  ): Promise<TransportResponse> {
    const what = callName(method, new URL(url).pathname);
    const headers: Record<string, string> = {
      accept,
      'x-github-api-version': '2022-11-28',
      'user-agent': 'svc',
      authorization: `Bearer ${token}`,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: TransportResponse;
    try {
      response = await this.#transport({
        method,
        url,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw providerFailure(GITHUB, what, reasonOf(error), error);
    }
    if (response.status >= 200 && response.status < 300) return response;
    throw githubError(what, response);
  }

  /**
   * Keeps pagination on the configured server: a GitHub Enterprise Server reached through another
   * name than its own writes its own name into Link headers, and the token must not go there.
   */
  #sameServer(next: string | undefined): string | undefined {
    if (next === undefined) return undefined;
    const target = new URL(next, this.#api);
    const api = new URL(this.#api);
    if (target.origin === api.origin) return target.href;
    return `${api.origin}${target.pathname}${target.search}`;
  }
}

/** How error messages name a call: the method and the path without its query. */
function callName(method: string, path: string): string {
  return `${method} ${path.split('?')[0] ?? path}`;
}

function readJson(what: string, response: TransportResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch (error) {
    throw providerFailure(GITHUB, what, 'the answer is not JSON', error);
  }
}

function check<S extends z.ZodType>(what: string, value: unknown, schema: S): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const where = parsed.error.issues.map((issue) => issue.path.join('.') || 'the answer').join(', ');
    throw providerFailure(GITHUB, what, `the answer does not have the documented shape (${where})`);
  }
  return parsed.data;
}

/** Fetch hides the reason (refused, TLS, DNS) in its error's cause. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
