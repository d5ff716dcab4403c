import type { z } from 'zod';
import { onOrigin, RestClient, type CallOptions } from '../rest-client.js';
import type { Transport, TransportResponse } from '../transport.js';
import { BITBUCKET, bitbucketError } from './errors.js';
import { pageSchema } from './schemas.js';

/**
 * Bitbucket Cloud's REST API 2.0 as svc uses it: the OAuth token as a bearer token, refusals turned
 * into SvcErrors, lists in pages of 100 (`pagelen`) followed by the body's `next` URL.
 */
export class BitbucketClient {
  readonly #api: string;
  readonly #rest: RestClient;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    this.#rest = new RestClient({
      provider: BITBUCKET,
      root: api,
      transport,
      headers: (token) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        authorization: `Bearer ${token}`,
      }),
      refusal: (call, response) => bitbucketError(call, response),
    });
  }

  json<S extends z.ZodType>(token: string, method: string, path: string, schema: S, body?: unknown) {
    return this.#rest.json(token, method, path, schema, body);
  }

  send(token: string, method: string, path: string, body?: unknown, options?: CallOptions): Promise<void> {
    return this.#rest.send(token, method, path, body, options);
  }

  raw(token: string, path: string): Promise<TransportResponse> {
    return this.#rest.request(token, 'GET', `${this.#api}${path}`);
  }

  /**
   * Every item of a paged list (`values`, then `next` until it is gone), `pagelen` (100 unless said)
   * a page; with `upTo`, pages stop once more than that many items came.
   */
  async list<S extends z.ZodType>(
    token: string,
    path: string,
    itemSchema: S,
    { pagelen = 100, upTo = Number.POSITIVE_INFINITY }: { pagelen?: number; upTo?: number } = {},
  ): Promise<z.infer<S>[]> {
    const separator = path.includes('?') ? '&' : '?';
    let url: string | undefined = `${this.#api}${path}${separator}pagelen=${pagelen}`;
    const items: z.infer<S>[] = [];
    const what = `GET ${path.split('?')[0] ?? path}`;
    // At most 1,000 pages: a `next` that never ends must not loop forever.
    for (let page = 0; url !== undefined && page < 1000; page++) {
      const response = await this.#rest.request(token, 'GET', url);
      const body = this.#rest.check(what, this.#rest.readJson(what, response), pageSchema);
      for (const value of body.values) items.push(this.#rest.check(what, value, itemSchema));
      url = items.length > upTo ? undefined : onOrigin(body.next, this.#api);
    }
    return items;
  }
}
