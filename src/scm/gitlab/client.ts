import type { z } from 'zod';
import { RestClient, type CallOptions } from '../rest-client.js';
import type { Transport, TransportResponse } from '../transport.js';
import { GITLAB, gitlabError } from './errors.js';

/** GitLab's largest page. */
const PER_PAGE = 100;

/**
 * GitLab's REST API v4 as svc uses it: the user's OAuth token as a bearer token (GitLab takes OAuth
 * tokens only there, not in `PRIVATE-TOKEN`), refusals turned into SvcErrors, lists followed by
 * `X-Next-Page` (which also works past 10,000 items, where GitLab stops counting).
 */
export class GitLabClient {
  readonly #api: string;
  readonly #rest: RestClient;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    this.#rest = new RestClient({
      provider: GITLAB,
      root: api,
      transport,
      headers: (token) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        authorization: `Bearer ${token}`,
      }),
      refusal: (call, response) => gitlabError(call, response),
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

  /** Every item of a list; with `upTo`, pages stop once more than that many came (rest-client `pages`). */
  list<S extends z.ZodType>(
    token: string,
    path: string,
    itemSchema: S,
    upTo?: number,
  ): Promise<z.infer<S>[]> {
    const separator = path.includes('?') ? '&' : '?';
    return this.#rest.pages(
      token,
      `${this.#api}${path}${separator}per_page=${PER_PAGE}&page=1`,
      itemSchema,
      (response, url) => {
        const next = response.header('x-next-page');
        if (next === undefined || next === '') return undefined;
        const following = new URL(url);
        following.searchParams.set('page', next);
        return following.href;
      },
      upTo,
    );
  }
}
