import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RpcClient } from './client.js';
import { isConflict, isRetriable, RpcError } from './errors.js';
import { httpTransport, insecureHttpsTransport, type HttpRequest, type HttpResponse } from './transport.js';
import { linuxDockerFilter } from '../testing/filter.js';

/** A transport that records requests (bodies as the text sent) and answers from a script. */
function scripted(answer: (request: HttpRequest) => HttpResponse | Error) {
  const sent: (HttpRequest & { body?: string })[] = [];
  return {
    sent,
    transport: (request: HttpRequest) => {
      // A log body's buffer carries the next request once this one is over: keep what was sent.
      sent.push({ ...request, body: request.body?.toString() });
      const result = answer(request);
      return result instanceof Error ? Promise.reject(result) : Promise.resolve(result);
    },
  };
}

const reply = (status: number, body: unknown = ''): HttpResponse => ({
  status,
  headers: {},
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('RpcClient', () => {
  it('sends the secret in X-SVC-Token, JSON bodies, and reads a 204 long-poll as "nothing"', async () => {
    const { sent, transport } = scripted(() => reply(204));
    const client = new RpcClient({ endpoint: 'http://ci.example.com/', secret: 's3cret', transport });
    const filter = linuxDockerFilter();
    expect(await client.request(filter)).toBeUndefined();
    expect(sent[0]).toMatchObject({
      method: 'POST',
      url: 'http://ci.example.com/rpc/v2/stage',
      headers: { 'X-SVC-Token': 's3cret', 'Content-Type': 'application/json' },
    });
    expect(JSON.parse(sent[0]?.body ?? '')).toMatchObject({ kind: 'pipeline', labels: {} });
    await client.accept(7, 'runner a/b').catch(() => undefined);
    expect(sent[1]?.url).toBe('http://ci.example.com/rpc/v2/stage/7?machine=runner%20a%2Fb');
    expect(sent[1]?.headers).not.toHaveProperty('Content-Type');
  });

  it('turns a 409 into a final conflict, and no answer or a 5xx into a retriable error', async () => {
    const answers = [
      reply(409, { code: 'CONFLICT', message: 'stage 7 was taken by runner "b"' }),
      new Error('ECONNREFUSED'),
      reply(503),
    ];
    const { transport } = scripted(() => answers.shift() ?? reply(500));
    const client = new RpcClient({ endpoint: 'http://ci', secret: 'x', transport });
    const conflict = await client.accept(7, 'a').catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(RpcError);
    expect(isConflict(conflict)).toBe(true);
    expect(isRetriable(conflict)).toBe(false);
    expect((conflict as Error).message).toContain('stage 7 was taken by runner "b"');
    const refused = await client.heartbeat(7).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 0, retriable: true });
    expect((refused as Error).message).toContain('no answer from http://ci');
    expect(await client.heartbeat(7).catch((e: unknown) => e)).toMatchObject({
      status: 503,
      retriable: true,
    });
  });

  it('refuses answers that do not have the protocol’s shape', async () => {
    const { transport } = scripted(() => reply(200, { id: 'seven' }));
    const client = new RpcClient({ endpoint: 'http://ci', secret: 'x', transport });
    await expect(client.accept(7, 'a')).rejects.toThrow(/stage is malformed at id/);
  });

  it('dumps requests and responses with the secret redacted, bodies only when asked', async () => {
    const entries: Record<string, unknown>[] = [];
    const { transport } = scripted(() => reply(200, { batch: 0, duplicate: false }));
    const sink = (entry: Record<string, unknown>) => void entries.push(entry);
    const withoutBodies = new RpcClient({
      endpoint: 'http://ci',
      secret: 'top-secret',
      transport,
      dump: { sink, bodies: false },
    });
    await withoutBodies.batch(3, 0, [{ pos: 0, out: 'hello', time: 0 }]);
    const text = JSON.stringify(entries);
    expect(text).not.toContain('top-secret');
    expect(entries[0]).toMatchObject({ method: 'POST', headers: { 'X-SVC-Token': '[redacted]' } });
    expect(entries[0]).not.toHaveProperty('body');
    expect(entries[1]).toMatchObject({ status: 200 });
    const withBodies = new RpcClient({
      endpoint: 'http://ci',
      secret: 'top-secret',
      transport,
      dump: { sink, bodies: true },
    });
    await withBodies.batch(3, 1, [{ pos: 1, out: 'world', time: 0 }]);
    expect(entries[2]?.body).toContain('world');
    expect(entries[3]?.body).toContain('duplicate');
    expect(JSON.stringify(entries)).not.toContain('top-secret');
  });
});

describe('HTTPS transports', () => {
  it('verify the server certificate, except the SVC_RPC_SKIP_VERIFY one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const server = createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (request, response) => response.writeHead(204).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const url = `https://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/rpc/v2/ping`;
    const request = { method: 'POST', url, headers: {}, timeout: 5_000 };
    try {
      await expect(httpTransport()(request)).rejects.toThrow(/self-signed/);
      const insecure = insecureHttpsTransport();
      expect((await insecure(request)).status).toBe(204);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('HTTP transport', () => {
  /** A loopback server answering with `handler`; counts the connections it accepted. */
  async function serve(handler: Parameters<typeof createHttpServer>[1]) {
    const server = createHttpServer(handler);
    let connections = 0;
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return {
      url: `http://127.0.0.1:${port}/rpc/v2/ping`,
      connections: () => connections,
      close: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
  }

  it('answers status, lower-case headers and body, and keeps the connection for the next request', async () => {
    const server = await serve((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () =>
        response.writeHead(201, { 'X-Echo': request.headers['x-svc-token'] ?? '' }).end(`got ${body}`),
      );
    });
    const send = httpTransport();
    try {
      for (const n of [1, 2, 3]) {
        const answer = await send({
          method: 'POST',
          url: server.url,
          headers: { 'X-SVC-Token': 'secret' },
          body: `{"n":${n}}`,
          timeout: 5_000,
        });
        expect(answer).toMatchObject({
          status: 201,
          headers: { 'x-echo': 'secret' },
          body: `got {"n":${n}}`,
        });
      }
      expect(server.connections()).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('gives up after the timeout, and when the signal aborts', async () => {
    const server = await serve(() => undefined);
    const send = httpTransport();
    try {
      const request = { method: 'POST', url: server.url, headers: {}, timeout: 100 };
      await expect(send(request)).rejects.toThrow(/no answer within 100 ms/);
      const controller = new AbortController();
      const aborted = send({ ...request, timeout: 5_000, signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      await expect(aborted).rejects.toThrow(/abort/i);
    } finally {
      await server.close();
    }
  });
});
