import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyBody } from './http-signature.js';

/** One request a test plugin got: its path, headers, JSON body and whether its signature verified. */
export interface PluginCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: { repo?: { slug?: string }; build?: { number?: number; after?: string }; config?: { data?: string } };
  verified: boolean;
}

/** A Drone-protocol plugin for tests: answers every POST with what `answer` says, by path. */
export interface TestPlugin {
  url(path: string): string;
  calls: PluginCall[];
  close(): Promise<void>;
}

/** Starts a plugin on loopback that checks signatures with `secret` and answers with `answer`. */
export async function startTestPlugin(
  secret: string,
  answer: (call: PluginCall) => { status: number; body?: string },
): Promise<TestPlugin> {
  const calls: PluginCall[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const call: PluginCall = {
        path: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(raw.toString('utf8')) as PluginCall['body'],
        verified:
          verifyBody(request.headers as Record<string, string>, raw, secret, new Date()) === undefined,
      };
      calls.push(call);
      const { status, body } = answer(call);
      response.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path) => `${base}${path}`,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
