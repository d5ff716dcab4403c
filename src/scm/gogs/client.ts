import type { z } from 'zod';
import { nextLink } from '../pagination.js';
import { onOrigin, RestClient } from '../rest-client.js';
import type { Transport, TransportResponse } from '../transport.js';
import { GOGS, gogsError } from './errors.js';

/**
 * Gogs' API v1 as svc uses it: `Authorization: token <token>` on every call (Gogs takes no
 * `Bearer`), HTTP Basic only for the access-token endpoints, which take nothing else.
 */
export class GogsClient {
  readonly #api: string;
  readonly #withToken: RestClient;
  readonly #withPassword: RestClient;

  constructor(api: string, transport: Transport) {
    this.#api = api;
    const common = { provider: GOGS, root: api, transport, refusal: gogsError };
    this.#withToken = new RestClient({
      ...common,
      headers: (token) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        authorization: `token ${token}`,
      }),
    });
    this.#withPassword = new RestClient({
      ...common,
      headers: (basic) => ({
        accept: 'application/json',
        'user-agent': 'svc',
        authorization: `Basic ${basic}`,
      }),
    });
  }

  json<S extends z.ZodType>(token: string, method: string, path: string, schema: S, body?: unknown) {
    return this.#withToken.json(token, method, path, schema, body);
  }

  send(token: string, method: string, path: string, body?: unknown): Promise<void> {
    return this.#withToken.send(token, method, path, body);
  }

  /** The raw answer of a GET (file contents). */
  raw(token: string, path: string): Promise<TransportResponse> {
    return this.#withToken.request(token, 'GET', `${this.#api}${path}`);
  }

  /** A call authenticated with the user's username and password (HTTP Basic). */
  withPassword<S extends z.ZodType>(
    username: string,
    password: string,
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const basic = Buffer.from(`${username}:${password}`, 'utf8').toString('base64');
    return this.#withPassword.json(basic, method, path, schema, body);
  }

  /**
   * Every item of a list. Gogs answers the lists svc reads in one piece; a `Link` header's next page
   * is followed all the same, should a version start to page them.
   */
  list<S extends z.ZodType>(token: string, path: string, itemSchema: S): Promise<z.infer<S>[]> {
    return this.#withToken.pages(token, `${this.#api}${path}`, itemSchema, (response) =>
      onOrigin(nextLink(response.header('link')), this.#api),
    );
  }
}
