import type { IncomingMessage } from 'node:http';
import { http, https as tls } from '../../platform/node-http.js';

/** One HTTP request of the protocol. */
export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer | undefined;
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

/**
 * node:http and node:https over kept-alive connections: plain HTTP, and HTTPS with certificate
 * verification unless `verify` is false (SVC_RPC_SKIP_VERIFY; unsafe by design, the runner logs a
 * warning when it is on). Not fetch: fetch costs a runner three times the CPU per request
 * (measured: ~285 µs against ~95 µs on loopback), which is what a busy runner spends on the protocol.
 * Redirects are not followed (the protocol has none). `timeout` bounds the whole exchange.
 */
export function httpTransport({ verify = true }: { verify?: boolean } = {}): HttpTransport {
  const agents = {
    http: new http.Agent({ keepAlive: true }),
    https: new tls.Agent({ keepAlive: true, rejectUnauthorized: verify }),
  };
  return (request) =>
    new Promise((resolve, reject) => {
      const https = request.url.startsWith('https:');
      const send = https ? tls.request : http.request;
      const req = send(
        request.url,
        {
          method: request.method,
          headers: request.headers,
          agent: https ? agents.https : agents.http,
          signal: request.signal,
        },
        (res) => void readWhole(res).then(resolve, reject),
      );
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer within ${request.timeout} ms`)),
        request.timeout,
      );
      req.once('close', () => clearTimeout(timer));
      req.on('error', reject);
      req.end(request.body);
    });
}

/** HTTPS WITHOUT certificate verification (SVC_RPC_SKIP_VERIFY): see httpTransport. */
export function insecureHttpsTransport(): HttpTransport {
  return httpTransport({ verify: false });
}

function readWhole(res: IncomingMessage): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
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
  });
}
