import type { z } from 'zod';
import { nextLink } from '../pagination.js';
import { onOrigin, RestClient, type CallOptions } from '../rest-client.js';
import type { Transport } from '../transport.js';
import { GITHUB, githubError } from './errors.js';

/** GitHub's largest page (docs: rest/using-the-rest-api/using-pagination-in-the-rest-api). */
const PER_PAGE = 100;

/**
 * The REST API as svc uses it: JSON in and out, the user's token on every call, GitHub's refusals
 * turned into SvcErrors, lists followed through their `Link` pages.
 */
export class GitHubClient {
  readonly #api: string;
  readonly #rest: RestClient;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    this.#rest = new RestClient({
      provider: GITHUB,
      root: api,
      transport,
      headers: (token) => ({
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'svc',
        authorization: `Bearer ${token}`,
      }),
      refusal: (call, response) => githubError(call, response),
    });
  }

  /** Calls `method path` and reads the answer with `schema`. */
  json<S extends z.ZodType>(
    token: string,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    return this.#rest.json(token, method, path, schema, body);
  }

  /** Calls `method path` for its effect; the answer's body is not read. */
  send(token: string, method: string, path: string, body?: unknown, options?: CallOptions): Promise<void> {
    return this.#rest.send(token, method, path, body, options);
  }

  /** The raw bytes of a file as text (`application/vnd.github.raw`), for files too large for JSON. */
  async raw(token: string, path: string): Promise<string> {
    const response = await this.#rest.request(token, 'GET', `${this.#api}${path}`, undefined, {
      accept: 'application/vnd.github.raw',
    });
    return response.text;
  }

  /** Every item of a list, following `rel="next"` links from `per_page=100` pages. */
  list<S extends z.ZodType>(token: string, path: string, itemSchema: S): Promise<z.infer<S>[]> {
    const separator = path.includes('?') ? '&' : '?';
    return this.#rest.pages(
      token,
      `${this.#api}${path}${separator}per_page=${PER_PAGE}`,
      itemSchema,
      (response) => onOrigin(nextLink(response.header('link')), this.#api),
    );
  }
}
