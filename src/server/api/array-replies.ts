import type { FastifyReply } from 'fastify';
import { ReusedBuffers } from '../../platform/reused-buffers.js';

/**
 * Arrays at least this long are written element by element: a short answer is a small string in
 * V8's young generation, whose memory is used again anyway, and costs nothing to touch.
 */
const ELEMENTS = 100;

/**
 * Long arrays answered by the API (a user's 1,000 repositories with their newest builds is 1.5 MiB),
 * written as JSON element by element into buffers used again. `JSON.stringify` of the whole array
 * makes one string of fresh memory, which the socket then encodes into more fresh memory: measured
 * on the benchmark machine, that array took ~35 ms this way and ~2.5 ms element by element into a
 * buffer used before (bench/analysis.md, api-scale). The bytes are those `JSON.stringify` writes.
 */
export class ArrayReplies {
  // One free buffer per list answer being sent at once, mostly; a larger answer grows its buffer.
  readonly #buffers = new ReusedBuffers({ firstBytes: 1 << 20, keepBytes: 8 << 20, keepFree: 4 });

  /**
   * What to send for a handler's result: a long array as its JSON, in a buffer given back once the
   * answer was handed to the socket; anything else as it is, for fastify to serialize.
   */
  body(result: unknown, reply: FastifyReply): unknown {
    if (!Array.isArray(result) || result.length < ELEMENTS) return result;
    const items: readonly unknown[] = result;
    const body = this.#buffers.write((put) => {
      put('[');
      for (let i = 0; i < items.length; i++) {
        // As JSON.stringify writes an array: elements JSON cannot hold (undefined, functions) are null.
        const json = JSON.stringify(items[i]) as string | undefined;
        put(`${i === 0 ? '' : ','}${json ?? 'null'}`);
      }
      put(']');
    });
    // 'finish': every byte is with the operating system. An answer cut short (the client went away)
    // never finishes, and its buffer is left to the garbage collector rather than used again.
    reply.raw.once('finish', () => this.#buffers.release(body));
    void reply.type('application/json; charset=utf-8');
    return body;
  }
}
