import { Agent, request as httpsRequest } from 'node:https';

/** One HTTP request to a git provider. */
export interface TransportRequest {
  method: string;
  url: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string;
}

/** The provider's answer, fully read. */
export interface TransportResponse {
  status: number;
  /** A response header by its (case-insensitive) name. */
  header(name: string): string | undefined;
  text: string;
}

/** Sends requests to a provider; throws only when no answer arrived (network, TLS, timeout). */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export interface TransportOptions {
  /** Skips TLS certificate verification of https URLs (SVC_SCM*_SKIP_VERIFY). */
  skipVerify: boolean;
  /** Replaces the global fetch (tests); unused for https when skipVerify is set. */
  fetch?: typeof fetch;
  /** Gives up on a provider that does not answer; a hung provider must not hang svc's handlers. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The HTTP client every provider shares. Global fetch cannot be told to skip certificate checks
 * without undici, so https requests under skipVerify go through node:https with an agent that
 * accepts any certificate; everything else uses fetch.
 */
export function createTransport(options: TransportOptions): Transport {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const doFetch = options.fetch ?? globalThis.fetch;
  const insecureAgent = options.skipVerify ? new Agent({ rejectUnauthorized: false, keepAlive: true }) : null;
  return async (request) => {
    if (insecureAgent !== null && request.url.startsWith('https:')) {
      return followRedirects(request, (r) => nodeRequest(r, insecureAgent, timeoutMs));
    }
    const response = await doFetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      redirect: 'follow',
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return {
      status: response.status,
      header: (name) => response.headers.get(name) ?? undefined,
      text,
    };
  };
}

const MAX_REDIRECTS = 5;

/**
 * node:https does not follow redirects the way fetch does; providers answer 301 for renamed
 * repositories. The credentials stay behind when a redirect leaves the origin, as fetch does.
 */
async function followRedirects(first: TransportRequest, send: Transport): Promise<TransportResponse> {
  let request = first;
  for (let hop = 0; ; hop++) {
    const response = await send(request);
    const location = response.header('location');
    if (
      ![301, 302, 303, 307, 308].includes(response.status) ||
      location === undefined ||
      hop === MAX_REDIRECTS
    ) {
      return response;
    }
    const url = new URL(location, request.url);
    const headers = { ...request.headers };
    if (url.origin !== new URL(request.url).origin) delete headers.authorization;
    const keepMethod = response.status === 307 || response.status === 308 || request.method === 'GET';
    request = keepMethod ? { ...request, url: url.href, headers } : { method: 'GET', url: url.href, headers };
  }
}

function nodeRequest(request: TransportRequest, agent: Agent, timeoutMs: number): Promise<TransportResponse> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      request.url,
      { method: request.method, headers: request.headers, agent, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = res.headers;
          resolve({
            status: res.statusCode ?? 0,
            header(name) {
              const value = headers[name.toLowerCase()];
              return Array.isArray(value) ? value.join(', ') : value;
            },
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/** The transport of a provider's options: its SKIP_VERIFY setting, and a test's fetch when given. */
export function providerTransport(options: {
  skipVerify: boolean;
  fetch?: typeof fetch | undefined;
}): Transport {
  return createTransport({
    skipVerify: options.skipVerify,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
}
