import type * as Http from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { http, https } from '../../../platform/node-http.js';
import { chooseApiVersion, PREFERRED_API_VERSION, type EngineApiVersions } from './api-version.js';
import { apiError } from './errors.js';

/**
 * The API version the doubles of the tests speak to the engine they drive (Debian's Docker 20.10).
 * svc itself asks each engine (chooseApiVersion in ./api-version.ts).
 */
export const API_VERSION = `v${PREFERRED_API_VERSION}`;

/** How long the version question may take: an engine that does not answer it answers nothing. */
const VERSION_TIMEOUT_MS = 30_000;

/** Where requests go: a unix socket, or a host and port over plain HTTP or TLS. */
export type Endpoint =
  | { socketPath: string }
  | { host: string; port: number; tls: boolean; ca?: Buffer; cert?: Buffer; key?: Buffer };

/** A request: query values that are undefined are left out; `body` is sent as JSON. */
export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** HTTP to one Docker engine over keep-alive connections (a step makes ~6 calls in a row). */
export class Transport {
  private readonly agent: Http.Agent;
  private readonly base: Http.RequestOptions;
  private readonly request: typeof http.request;
  /** The `/v1.xx` prefix of every path, asked of the engine once (GET /version, unprefixed). */
  private prefix: Promise<string> | undefined;

  constructor(readonly endpoint: Endpoint) {
    if ('socketPath' in endpoint) {
      this.agent = new http.Agent({ keepAlive: true });
      // A server name given spares the agent working one out from the host: that test of
      // 'localhost' against Node's IPv6 pattern compiles the pattern, ~10 ms of the first request
      // (it names TLS's SNI, which a unix socket has none of).
      const noTls = { servername: 'localhost' };
      this.base = { socketPath: endpoint.socketPath, ...noTls };
      this.request = http.request;
    } else {
      const { host, port, tls, ca, cert, key } = endpoint;
      this.agent = tls
        ? new https.Agent({ keepAlive: true, ca, cert, key })
        : new http.Agent({ keepAlive: true });
      this.base = { host, port };
      this.request = tls ? https.request : http.request;
    }
  }

  /** Sends a request; resolves with the response once its status is below 400, else rejects with Docker's error. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Http.IncomingMessage> {
    const prefix = await this.versionPrefix(options.signal);
    return new Promise((resolve, reject) => {
      const request = this.open(prefix, method, path, options);
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status < 400) return resolve(response);
        text(response).then((body) => reject(apiError(status, body, `${method} ${path}`)), reject);
      });
      request.once('error', reject);
      request.end(options.body === undefined ? undefined : JSON.stringify(options.body));
    });
  }

  /**
   * Sends `upload` as the request's body (a tar for the archive endpoints), streamed: resolves with
   * the response once its status is below 400, else rejects with Docker's error. An upload that
   * fails aborts the request.
   */
  async sendStream(
    method: string,
    path: string,
    upload: Readable,
    options: RequestOptions & { contentType: string },
  ): Promise<Http.IncomingMessage> {
    const prefix = await this.versionPrefix(options.signal);
    return new Promise((resolve, reject) => {
      const request = this.open(prefix, method, path, {
        ...options,
        headers: { ...options.headers, 'Content-Type': options.contentType },
      });
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        if (status < 400) return resolve(response);
        text(response).then((body) => reject(apiError(status, body, `${method} ${path}`)), reject);
      });
      request.once('error', reject);
      pipeline(upload, request).catch((error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        request.destroy(failure);
        reject(failure);
      });
    });
  }

  /**
   * Sends a request Docker answers by hijacking the connection (attach, exec start), with its JSON
   * body if any: resolves with the raw socket after `101 Switching Protocols`, with any bytes read
   * past the response put back.
   */
  async upgrade(method: string, path: string, options: RequestOptions = {}): Promise<Duplex> {
    const prefix = await this.versionPrefix(options.signal);
    return new Promise((resolve, reject) => {
      const request = this.open(prefix, method, path, {
        ...options,
        headers: { ...options.headers, Connection: 'Upgrade', Upgrade: 'tcp' },
      });
      request.once('upgrade', (_response, socket, head) => {
        if (head.length > 0) socket.unshift(head);
        resolve(socket);
      });
      // Any ordinary response means Docker refused to hijack (an error, or a proxy in between).
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        text(response).then((body) => reject(apiError(status, body, `${method} ${path}`)), reject);
      });
      request.once('error', reject);
      request.end(options.body === undefined ? undefined : JSON.stringify(options.body));
    });
  }

  /** Sends a request and reads its JSON answer. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    return this.read(
      options.signal,
      async () => JSON.parse(await text(await this.send(method, path, options))) as T,
    );
  }

  /** Sends a request whose answer has no body worth reading (204, or a status line). */
  async empty(method: string, path: string, options: RequestOptions = {}): Promise<void> {
    await this.read(options.signal, async () => void (await text(await this.send(method, path, options))));
  }

  /** The API version this transport speaks to the engine (`1.41`), asked of it on first use. */
  async apiVersion(signal?: AbortSignal): Promise<string> {
    return (await this.versionPrefix(signal)).slice('/v'.length);
  }

  /** Closes the idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  /**
   * Runs a read; an abort can also land while the body streams in (a wait's headers come at once),
   * where Node reports a reset connection: either way the caller sees the abort's reason.
   */
  private async read<T>(signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      signal?.throwIfAborted();
      throw err;
    }
  }

  /**
   * The version prefix for this engine: GET /version is the one call every engine answers without a
   * prefix (in its own newest shape). Shared by concurrent callers, so not cut short by one caller's
   * abort (bounded by its own timeout instead); asked again after a failure (the engine not up yet).
   */
  private async versionPrefix(signal: AbortSignal | undefined): Promise<string> {
    signal?.throwIfAborted();
    this.prefix ??= this.askVersion().catch((error: unknown) => {
      this.prefix = undefined;
      throw error;
    });
    const prefix = await this.prefix;
    signal?.throwIfAborted();
    return prefix;
  }

  private askVersion(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const request = this.open('', 'GET', '/version', { signal: AbortSignal.timeout(VERSION_TIMEOUT_MS) });
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        text(response).then((body) => {
          if (status >= 400) return reject(apiError(status, body, 'GET /version'));
          let answer: EngineApiVersions | null;
          try {
            answer = JSON.parse(body) as EngineApiVersions | null;
          } catch {
            return reject(new Error(`GET /version: not JSON: ${body.slice(0, 200)}`));
          }
          try {
            resolve(`/v${chooseApiVersion(answer ?? {}, this.where())}`);
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        }, reject);
      });
      request.once('error', reject);
      request.end();
    });
  }

  private where(): string {
    const endpoint = this.endpoint;
    return 'socketPath' in endpoint ? `unix://${endpoint.socketPath}` : `${endpoint.host}:${endpoint.port}`;
  }

  private open(prefix: string, method: string, path: string, options: RequestOptions): Http.ClientRequest {
    const headers: Record<string, string> = { ...options.headers };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    return this.request({
      ...this.base,
      agent: this.agent,
      method,
      path: `${prefix}${path}${queryString(options.query)}`,
      headers,
      signal: options.signal,
    });
  }
}

function queryString(query: RequestOptions['query']): string {
  if (query === undefined) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined)
      params.set(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Reads a whole response body as UTF-8. */
async function text(response: Http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
