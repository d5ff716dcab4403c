import { EventEmitter } from 'node:events';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { ArrayReplies } from './array-replies.js';

/** A real server whose `/list/:n` answers `n` elements through ArrayReplies. */
async function serve(items: (n: number) => unknown[]): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  const replies = new ArrayReplies();
  app.get<{ Params: { n: string } }>('/list/:n', async (request, reply) =>
    replies.body(items(Number(request.params.n)), reply),
  );
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url };
}

describe('ArrayReplies', () => {
  let app: FastifyInstance | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const element = (i: number): unknown =>
    i % 50 === 7
      ? undefined
      : { i, text: `quotes " \\ \u0001 é 😀 \ud800 \u2028 ${'x'.repeat(i % 300)}`, nested: [i, null, true] };

  it('answers a long array with exactly the bytes JSON.stringify writes, as JSON', async () => {
    const served = await serve((n) => Array.from({ length: n }, (_, i) => element(i)));
    app = served.app;
    for (const n of [100, 1_000, 20_000]) {
      const response = await fetch(`${served.url}/list/${n}`);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const expected = JSON.stringify(Array.from({ length: n }, (_, i) => element(i)));
      expect(await response.text()).toBe(expected);
      expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(expected));
    }
  });

  it('leaves short arrays and other values to fastify', () => {
    const replies = new ArrayReplies();
    const short = [1, 2, 3];
    const object = { a: 1 };
    const reply = {} as Parameters<ArrayReplies['body']>[1];
    expect(replies.body(short, reply)).toBe(short);
    expect(replies.body(object, reply)).toBe(object);
    expect(replies.body(undefined, reply)).toBe(undefined);
  });

  it('uses an answer’s buffer again only once the answer finished, and never when it was cut short', () => {
    const replies = new ArrayReplies();
    const reply = (): { raw: EventEmitter; reply: FastifyReply } => {
      const raw = new EventEmitter();
      return { raw, reply: { raw, type: () => undefined } as unknown as FastifyReply };
    };
    const list = (n: number): number[] => Array.from({ length: 100 }, () => n);
    const first = reply();
    const firstBody = replies.body(list(1), first.reply) as Buffer;
    const second = reply();
    const secondBody = replies.body(list(2), second.reply) as Buffer;
    expect(secondBody.buffer).not.toBe(firstBody.buffer);
    second.raw.emit('close');
    expect((replies.body(list(3), reply().reply) as Buffer).buffer).not.toBe(secondBody.buffer);
    first.raw.emit('finish');
    const fourth = replies.body(list(4), reply().reply) as Buffer;
    expect(fourth.buffer).toBe(firstBody.buffer);
    expect(fourth.toString()).toBe(JSON.stringify(list(4)));
  });

  it('keeps each answer intact while many large ones are sent at once and buffers are used again', async () => {
    // Each answer's elements name their request, so a buffer reused too early would show.
    const served = await serve((n) =>
      Array.from({ length: 4_000 }, (_, i) => ({ n, i, pad: 'p'.repeat(500) })),
    );
    app = served.app;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 6 }, async (_, n) => (await fetch(`${served.url}/list/${n}`)).text()),
      );
      answers.forEach((text, n) => {
        expect(text).toBe(
          JSON.stringify(Array.from({ length: 4_000 }, (_, i) => ({ n, i, pad: 'p'.repeat(500) }))),
        );
      });
    }
  });
});
