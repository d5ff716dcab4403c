import http from 'node:http';
import { PassThrough } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { closeConnectionsAfterAnswers } from './graceful-close.js';

describe('closing the server behind a load balancer', () => {
  it('ends a kept-alive connection with the answer in flight, so the close does not wait for the client', async () => {
    const app = Fastify();
    closeConnectionsAfterAnswers(app);
    app.get('/slow', async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    // A balancer's connection pool: it would keep the connection for its next request.
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    try {
      const answered = new Promise<string | undefined>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/slow', agent }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.headers.connection));
          })
          .on('error', reject);
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const started = Date.now();
      const closed = app.close().then(() => Date.now() - started);
      expect(await answered).toBe('close');
      // Without the header the close waited until the client dropped the connection (here: never).
      const closedIn = await Promise.race([
        closed,
        new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 3_000)),
      ]);
      expect(closedIn).toBeLessThan(2_000);
    } finally {
      agent.destroy();
      await app.close();
    }
  });

  it('ends a kept-alive connection whose answer began before the close once that answer is sent', async () => {
    const app = Fastify();
    closeConnectionsAfterAnswers(app);
    let finish: () => void = () => undefined;
    app.get('/download', (_request, reply) => {
      // A download streamed from storage: its headers leave at once, its end comes later.
      const body = new PassThrough();
      finish = () => body.end('the end');
      body.write('part one, ');
      return reply.header('content-type', 'text/plain').send(body);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as { port: number };
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    try {
      const headersSeen = Promise.withResolvers<void>();
      const answered = new Promise<string>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/download', agent }, (response) => {
            expect(response.headers.connection).toBe('keep-alive');
            headersSeen.resolve();
            let text = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => (text += chunk));
            response.on('end', () => resolve(text));
          })
          .on('error', reject);
      });
      await headersSeen.promise;
      const started = Date.now();
      const closed = app.close().then(() => Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
      finish();
      expect(await answered).toBe('part one, the end');
      const closedIn = await Promise.race([
        closed,
        new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), 3_000)),
      ]);
      expect(closedIn).toBeLessThan(2_000);
    } finally {
      agent.destroy();
      await app.close();
    }
  });

  it('keeps connections alive while the server runs', async () => {
    const app = Fastify();
    closeConnectionsAfterAnswers(app);
    app.get('/', () => ({ ok: true }));
    try {
      const answer = await app.inject({ method: 'GET', url: '/' });
      expect(answer.headers.connection).not.toBe('close');
    } finally {
      await app.close();
    }
  });
});
