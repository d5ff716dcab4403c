import { RequestError } from './errors.js';

/** Where the server is and who the client is (SVC_SERVER, SVC_TOKEN). */
export interface ClientSettings {
  server: string;
  token: string;
}

/** Query parameters; repeated names as arrays, undefined ones left out. */
export type Query = Record<string, string | number | boolean | undefined>;

/**
 * The svc API over HTTP for the command-line client: bearer authentication, JSON both ways, and
 * the server's error JSON (`{"message": …}`) turned into a RequestError carrying that message, so
 * that every command prints `svc: <message>` and never a stack trace.
 */
export class ApiClient {
  readonly #settings: ClientSettings;

  constructor(settings: ClientSettings) {
    this.#settings = { ...settings, server: settings.server.replace(/\/+$/, '') };
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.#json<T>('GET', path, query);
  }

  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.#json<T>('POST', path, query, body);
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.#json<T>('PATCH', path, undefined, body);
  }

  /** A DELETE; its JSON answer when there is one (undefined for 204). */
  delete<T = undefined>(path: string, query?: Query): Promise<T> {
    return this.#json<T>('DELETE', path, query);
  }

  /** A streaming GET (server-sent events): the open response, for the caller to read. */
  stream(path: string, signal?: AbortSignal): Promise<Response> {
    return this.#send('GET', path, undefined, undefined, { accept: 'text/event-stream', signal });
  }

  /** A GET of a file (not JSON): the open response, its body for the caller to stream. */
  download(path: string, query?: Query): Promise<Response> {
    return this.#send('GET', path, query, undefined, { accept: '*/*' });
  }

  /** The URL a path names, with its query. */
  url(path: string, query: Query = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query))
      if (value !== undefined) search.append(key, String(value));
    const text = search.toString();
    return `${this.#settings.server}${path}${text === '' ? '' : `?${text}`}`;
  }

  async #json<T>(method: string, path: string, query?: Query, body?: unknown): Promise<T> {
    const response = await this.#send(method, path, query, body);
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new RequestError(
        `${method} ${path}: the server answered something that is not JSON`,
        response.status,
      );
    }
  }

  async #send(
    method: string,
    path: string,
    query?: Query,
    body?: unknown,
    options: { accept?: string; signal?: AbortSignal | undefined } = {},
  ): Promise<Response> {
    const url = this.url(path, query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#settings.token}`,
      accept: options.accept ?? 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      const cause =
        error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new RequestError(`cannot reach the server at ${this.#settings.server} (SVC_SERVER): ${cause}`, 0);
    }
    if (response.ok) return response;
    throw new RequestError(await errorMessage(response), response.status);
  }
}

/** The server's own words for a refusal, else its status. */
async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string' && parsed.message !== '') return parsed.message;
  } catch {
    // Not JSON: a proxy's page, say. The status says enough.
  }
  return `the server answered ${response.status} ${response.statusText}`.trim();
}
