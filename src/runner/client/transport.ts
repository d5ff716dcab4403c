import { request as httpsRequest, Agent } from 'node:https';

/** One HTTP request of the protocol. */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Milliseconds before the request is given up. */
  timeout: number;
  signal?: AbortSignal | undefined;
}

/** Its answer, read whole. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends one request. Rejects when no answer came (refused, reset, timed out, aborted); an answer
 * of any status resolves.
 */
export type HttpTransport = (request: HttpRequest) => Promise<HttpResponse>;

/** Node's fetch: plain HTTP, and HTTPS with certificate verification. */
export const fetchTransport: HttpTransport = async (request) => {
  const timeout = AbortSignal.timeout(request.timeout);
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
    signal: request.signal === undefined ? timeout : AbortSignal.any([request.signal, timeout]),
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  };
};

/**
 * HTTPS WITHOUT certificate verification (SVC_RPC_SKIP_VERIFY): Node's fetch cannot be told to
 * skip it per request, node:https can. Unsafe by design; the runner logs a warning when it is on.
 */
export function insecureHttpsTransport(): HttpTransport {
  const agent = new Agent({ keepAlive: true, rejectUnauthorized: false });
  return (request) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        request.url,
        {
          method: request.method,
          headers: request.headers,
          agent,
          timeout: request.timeout,
          signal: request.signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const headers: Record<string, string> = {};
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
            }
            resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${request.timeout} ms`)));
      req.on('error', reject);
      req.end(request.body);
    });
}
