import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBody } from './http-signature.js';
import { WebhookSender } from './webhook-sender.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

describe('WebhookSender', () => {
  const received: Received[] = [];
  let base = '';
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(request.url === '/broken' ? 500 : 204).end();
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('posts the payload to every endpoint, signed, with the event kind, and logs receivers that fail', async () => {
    received.length = 0;
    const warnings: string[] = [];
    const sender = new WebhookSender({
      // A closed port: the delivery fails and is logged; the others still arrive.
      endpoints: [`${base}/a`, `${base}/broken`, 'http://127.0.0.1:1/closed'],
      secret: 'hook-secret',
      skipVerify: false,
      logger: { warn: (message: string) => warnings.push(message) },
    });
    const payload = { event: 'repo', action: 'enabled', repo: { slug: 'octocat/hello' } };
    sender.send('repo', payload);
    await sender.settled();

    expect(received.map((r) => r.path).sort()).toEqual(['/a', '/broken']);
    for (const delivery of received) {
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['x-drone-event']).toBe('repo');
      expect(JSON.parse(delivery.body.toString('utf8'))).toEqual(payload);
      const headers = delivery.headers as Record<string, string | undefined>;
      expect(verifyBody(headers, delivery.body, 'hook-secret', new Date())).toBeUndefined();
    }
    expect(warnings).toHaveLength(2);
    expect(warnings).toContain(`webhook repo to ${base}/broken: the receiver answered 500`);
    expect(warnings.find((w) => w.includes('127.0.0.1:1/closed'))).toMatch(/^webhook repo to .* failed: /);
  });

  it('sends unsigned deliveries when no secret is set', async () => {
    received.length = 0;
    const sender = new WebhookSender({
      endpoints: [`${base}/plain`],
      secret: undefined,
      skipVerify: false,
      logger: { warn: () => undefined },
    });
    sender.send('user', { event: 'user' });
    await sender.settled();
    expect(received).toHaveLength(1);
    expect(received[0]?.headers.signature).toBeUndefined();
  });
});
