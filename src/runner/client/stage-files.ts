import type { Agent, ClientRequest, IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { http, https as tls } from '../../platform/node-http.js';
import type { Readable } from 'node:stream';
import type { ArtifactReceipt, ArtifactRefusal, ArtifactTransport } from '../artifacts/transport.js';
import { testReceiptOf } from './test-receipt.js';
import type { CacheHit, CacheRefusal, CacheTransport } from '../cache/transport.js';
import { sweptAsItFlows } from '../../platform/dead-buffers.js';

/** How the runner reaches the server's caches and artifacts: as the RpcClient does. */
export interface RpcStageFilesOptions {
  endpoint: string;
  secret: string;
  runner?: string | undefined;
  skipVerify?: boolean;
}

/** A cache or artifact exchange gives up after this long without a byte either way (not a deadline: uploads take what they take). */
const IDLE_TIMEOUT = 60_000;

/**
 * The runner's side of the protocol's cache and artifact routes (src/server/rpc/routes/caches.ts,
 * artifacts.ts): archives stream both ways, never held whole, over their own kept-alive
 * connections (the protocol's other client reads answers whole).
 */
export class RpcStageFiles {
  readonly #endpoint: string;
  readonly #headers: Record<string, string>;
  readonly #agent: Agent;
  readonly #https: boolean;

  constructor(options: RpcStageFilesOptions) {
    this.#endpoint = options.endpoint.replace(/\/+$/, '');
    this.#https = this.#endpoint.startsWith('https:');
    this.#headers = { 'X-SVC-Token': options.secret };
    if (options.runner !== undefined) this.#headers['X-SVC-Runner'] = options.runner;
    this.#agent = this.#https
      ? new tls.Agent({ keepAlive: true, rejectUnauthorized: options.skipVerify !== true })
      : new http.Agent({ keepAlive: true });
  }

  /** The caches of one stage the runner holds. */
  caches(stageId: number): CacheTransport {
    // What the server said when restoring: the build may not save (a fork's pull request).
    let refused: string | undefined;
    return {
      restore: async (key, restoreKeys, signal): Promise<CacheHit | undefined> => {
        const path = `/rpc/v2/stage/${stageId}/cache/restore`;
        const { request, answer } = this.#open('POST', path, 'application/json', signal);
        request.end(JSON.stringify({ key, restore_keys: restoreKeys }));
        const response = await answer;
        const refusal = header(response, 'x-svc-cache-write-refused');
        if (refusal !== undefined) refused = decodeURIComponent(refusal);
        if (response.statusCode === 204) return void response.resume();
        if (response.statusCode !== 200) throw new Error(await failure(response, path));
        return {
          key: decodeURIComponent(header(response, 'x-svc-cache-key') ?? key),
          exact: header(response, 'x-svc-cache-exact') === 'true',
          size: Number(header(response, 'content-length') ?? 0),
          body: response,
        };
      },
      save: async (key, archive, signal): Promise<{ size: number } | CacheRefusal> => {
        if (refused !== undefined) {
          archive.destroy();
          return { refused };
        }
        const path = `/rpc/v2/stage/${stageId}/cache?key=${encodeURIComponent(key)}`;
        const { request, answer } = this.#open('PUT', path, 'application/zstd', signal);
        const sending = pipeline(archive, request);
        sending.catch(() => undefined);
        const response = await answer;
        if (response.statusCode === 403) return { refused: await failure(response, path, false) };
        if (response.statusCode !== 201) throw new Error(await failure(response, path));
        await sending;
        const body = JSON.parse(await text(response)) as { size?: unknown };
        return { size: typeof body.size === 'number' ? body.size : 0 };
      },
    };
  }

  /** The artifacts of one stage the runner holds. */
  artifacts(stageId: number): ArtifactTransport {
    return {
      upload: async (
        { name, step, attempt, expireIn, junit, reportsOnly, tar },
        signal,
      ): Promise<ArtifactReceipt | ArtifactRefusal> => {
        const query = new URLSearchParams({
          step,
          attempt: String(attempt),
          expire_in: String(expireIn),
          junit: JSON.stringify(junit),
          reports_only: String(reportsOnly),
        });
        const path = `/rpc/v2/stage/${stageId}/artifacts/${encodeURIComponent(name)}?${query.toString()}`;
        const { request, answer } = this.#open('PUT', path, 'application/x-tar', signal);
        const sending = pipeline(sweptAsItFlows(tar), request);
        sending.catch(() => undefined);
        const response = await answer;
        if (response.statusCode === 403 || response.statusCode === 400)
          return { refused: await failure(response, path, false) };
        if (response.statusCode !== 201) throw new Error(await failure(response, path));
        await sending;
        const body = JSON.parse(await text(response)) as { files?: unknown; size?: unknown; tests?: unknown };
        return {
          files: typeof body.files === 'number' ? body.files : 0,
          size: typeof body.size === 'number' ? body.size : 0,
          tests: testReceiptOf(body.tests),
        };
      },
      fetch: async (stage, signal): Promise<Readable | undefined> => {
        const path = `/rpc/v2/stage/${stageId}/artifacts/from/${encodeURIComponent(stage)}`;
        const { request, answer } = this.#open('GET', path, 'application/json', signal);
        request.end();
        const response = await answer;
        if (response.statusCode === 204) return void response.resume();
        if (response.statusCode !== 200) throw new Error(await failure(response, path));
        return response;
      },
    };
  }

  #open(
    method: string,
    path: string,
    contentType: string,
    signal: AbortSignal | undefined,
  ): { request: ClientRequest; answer: Promise<IncomingMessage> } {
    const send = this.#https ? tls.request : http.request;
    const request = send(`${this.#endpoint}${path}`, {
      method,
      headers: { ...this.#headers, 'Content-Type': contentType },
      agent: this.#agent,
      signal,
    });
    request.setTimeout(IDLE_TIMEOUT, () =>
      request.destroy(new Error(`nothing sent or received for ${IDLE_TIMEOUT / 1000} s`)),
    );
    const answer = new Promise<IncomingMessage>((resolve, reject) => {
      request.once('response', resolve);
      request.once('error', reject);
    });
    return { request, answer };
  }
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function text(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The server's message for a failed cache request (`{message}`), or its status. */
async function failure(response: IncomingMessage, path: string, withStatus = true): Promise<string> {
  const body = await text(response);
  let message = body.slice(0, 200);
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: the start of the body says what it can.
  }
  // A server without the routes (an older svc, Drone) answers its own 404 for the path.
  if (response.statusCode === 404 && /^(no route|Route )/.test(message))
    return `the server keeps no caches (${path})`;
  return withStatus ? `${response.statusCode ?? 0} ${message}` : message;
}
