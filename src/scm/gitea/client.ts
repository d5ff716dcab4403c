import type { z } from 'zod';
import { nextLink } from '../pagination.js';
import { onOrigin, RestClient, type CallOptions } from '../rest-client.js';
import type { Transport, TransportResponse } from '../transport.js';
import { GITEA, giteaError } from './errors.js';

/** Gitea's largest page (`[api] MAX_RESPONSE_ITEMS`, 50 by default; larger limits are cut to it). */
export const PAGE_LIMIT = 50;

/**
 * Gitea's API v1 as svc uses it: the user's OAuth token as a bearer token on every call, refusals
 * turned into SvcErrors, lists followed page by page.
 */
export class GiteaClient {
  readonly #api: string;
  readonly #rest: RestClient;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    this.#rest = new RestClient({
      provider: GITEA,
      root: api,
      transport,
      headers: (token) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        authorization: `Bearer ${token}`,
      }),
      refusal: giteaError,
    });
  }

  json<S extends z.ZodType>(token: string, method: string, path: string, schema: S, body?: unknown) {
    return this.#rest.json(token, method, path, schema, body);
  }

  send(token: string, method: string, path: string, body?: unknown, options?: CallOptions): Promise<void> {
    return this.#rest.send(token, method, path, body, options);
  }

  /** The raw answer of a GET (file contents, membership checks answered by status). */
  raw(token: string, path: string): Promise<TransportResponse> {
    return this.#rest.request(token, 'GET', `${this.#api}${path}`);
  }

  /**
   * Every item of a list, `limit=50` a page. The next page is the `Link` header's; not every Gitea
   * list sends one, so without it a full page means there may be another. With `upTo`, pages stop
   * once more than that many items came.
   */
  list<S extends z.ZodType>(
    token: string,
    path: string,
    itemSchema: S,
    upTo?: number,
  ): Promise<z.infer<S>[]> {
    const separator = path.includes('?') ? '&' : '?';
    const first = `${this.#api}${path}${separator}limit=${PAGE_LIMIT}&page=1`;
    return this.#rest.pages(
      token,
      first,
      itemSchema,
      (response, url, count) => {
        const linked = response.header('link');
        if (linked !== undefined && linked !== '') return onOrigin(nextLink(linked), this.#api);
        if (count < PAGE_LIMIT) return undefined;
        const next = new URL(url);
        next.searchParams.set('page', String(Number(next.searchParams.get('page') ?? 1) + 1));
        return next.href;
      },
      upTo,
    );
  }
}
