import type { HttpRequest, HttpResponse, HttpTransport } from './transport.js';

/** Where dumped exchanges go: one entry per request and per response. */
export type DumpSink = (entry: Record<string, unknown>, message: string) => void;

const REDACTED = '[redacted]';
const SECRET_HEADERS = new Set(['x-svc-token', 'x-drone-token', 'authorization']);

/**
 * Wraps a transport so that every request and response is written to `sink` (SVC_RPC_DUMP_HTTP),
 * bodies too when `bodies` (SVC_RPC_DUMP_HTTP_BODY). The secret header never appears: its value
 * is replaced by `[redacted]`. Bodies can hold secrets of builds (stage details): dump them only
 * to debug.
 */
export function dumpingTransport(transport: HttpTransport, sink: DumpSink, bodies: boolean): HttpTransport {
  return async (request) => {
    sink(requestEntry(request, bodies), `rpc request ${request.method} ${new URL(request.url).pathname}`);
    const started = performance.now();
    try {
      const response = await transport(request);
      sink(
        responseEntry(response, bodies, performance.now() - started),
        `rpc response ${response.status} to ${request.method} ${new URL(request.url).pathname}`,
      );
      return response;
    } catch (error) {
      sink(
        { error: error instanceof Error ? error.message : String(error) },
        `rpc request ${request.method} failed`,
      );
      throw error;
    }
  };
}

function requestEntry(request: HttpRequest, bodies: boolean): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url,
    headers: redact(request.headers),
    ...(bodies && request.body !== undefined ? { body: request.body.toString() } : {}),
  };
}

function responseEntry(response: HttpResponse, bodies: boolean, ms: number): Record<string, unknown> {
  return {
    status: response.status,
    headers: redact(response.headers),
    ms: Math.round(ms),
    ...(bodies ? { body: response.body } : {}),
  };
}

function redact(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      SECRET_HEADERS.has(name.toLowerCase()) ? REDACTED : value,
    ]),
  );
}
