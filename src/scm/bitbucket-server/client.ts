import type { KeyObject } from 'node:crypto';
import type { z } from 'zod';
import { oauth1Authorization } from '../oauth1.js';
import { providerFailure } from '../errors.js';
import { RestClient, type CallOptions } from '../rest-client.js';
import type { Transport, TransportResponse } from '../transport.js';
import { BITBUCKET_SERVER, bitbucketServerError } from './errors.js';
import { pageSchema } from './schemas.js';

/** Items per page: Bitbucket's default is 25, and servers cap `limit` at 1,000 unless configured lower. */
const PAGE_LIMIT = 100;
/** Ends a pagination loop that a broken `nextPageStart` would never end. */
const MAX_PAGES = 1000;

/**
 * Bitbucket Server's HTTP APIs as svc calls them: every request signed for the user's access token
 * with the consumer's RSA key (OAuth 1.0a, fresh nonce and timestamp per request; a JSON body is
 * not part of the signature), XSRF checks off for writes, refusals turned into SvcErrors, lists read
 * page by page (`start`, `limit`, then `nextPageStart` until `isLastPage`). Paths are below the web
 * root: the REST API, the build status API and the servlets share the signing.
 */
export class BitbucketServerClient {
  readonly #web: string;
  readonly #rest: RestClient;

  constructor(
    web: string,
    consumer: { consumerKey: string; privateKey: KeyObject; now?: (() => number) | undefined },
    transport: Transport,
  ) {
    this.#web = web;
    const now = consumer.now ?? Date.now;
    this.#rest = new RestClient({
      provider: BITBUCKET_SERVER,
      root: web,
      transport,
      headers: (token, call) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        'x-atlassian-token': 'no-check',
        authorization: oauth1Authorization({
          method: call.method,
          url: call.url,
          consumerKey: consumer.consumerKey,
          privateKey: consumer.privateKey,
          token,
          timestamp: Math.floor(now() / 1000),
        }),
      }),
      refusal: (call, response) => bitbucketServerError(call, response, now()),
    });
  }

  json<S extends z.ZodType>(token: string, method: string, path: string, schema: S, body?: unknown) {
    return this.#rest.json(token, method, path, schema, body);
  }

  send(token: string, method: string, path: string, body?: unknown, options?: CallOptions): Promise<void> {
    return this.#rest.send(token, method, path, body, options);
  }

  raw(token: string, path: string): Promise<TransportResponse> {
    return this.#rest.request(token, 'GET', `${this.#web}${path}`);
  }

  /**
   * Every item of a paged list, `limit` (100 unless said) a page; with `upTo`, pages stop once more
   * than that many items came.
   */
  async list<S extends z.ZodType>(
    token: string,
    path: string,
    itemSchema: S,
    { limit = PAGE_LIMIT, upTo = Number.POSITIVE_INFINITY }: { limit?: number; upTo?: number } = {},
  ): Promise<z.infer<S>[]> {
    const what = `GET ${path.split('?')[0] ?? path}`;
    const separator = path.includes('?') ? '&' : '?';
    const items: z.infer<S>[] = [];
    let start: number | undefined = 0;
    for (let page = 0; start !== undefined; page++) {
      if (page === MAX_PAGES) throw providerFailure(BITBUCKET_SERVER, what, `more than ${MAX_PAGES} pages`);
      const url = `${this.#web}${path}${separator}start=${start}&limit=${limit}`;
      const response = await this.#rest.request(token, 'GET', url);
      const body = this.#rest.check(what, this.#rest.readJson(what, response), pageSchema);
      for (const value of body.values) items.push(this.#rest.check(what, value, itemSchema));
      start = body.isLastPage || items.length > upTo ? undefined : body.nextPageStart;
    }
    return items;
  }
}
