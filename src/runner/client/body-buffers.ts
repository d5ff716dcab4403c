import type { LogLine } from '../../core/log.js';
import { lineJson } from './wire/lines.js';

/** What a buffer starts at, enough for a batch of 10,000 lines of 100 bytes. */
const FIRST_BYTES = 2 * 1024 * 1024;
/** Buffers larger than this are not kept once their request is over. */
const KEEP_BYTES = 8 * 1024 * 1024;
/** Free buffers kept for the next requests: one per step sending at once, mostly. */
const KEEP_FREE = 4;

/**
 * Request bodies of log lines, written as UTF-8 into buffers that are used again, request after
 * request. Building a batch as one string made the runner allocate, then encode, a megabyte of
 * fresh memory per batch, and fresh memory is slow to touch: on the benchmark machine, sending a
 * 10,000-line batch took ~20 ms of CPU that way and ~3 ms written into a buffer used before
 * (bench/analysis.md, log-throughput). A buffer is the caller's from `lines` until it `release`s
 * it, after the request is over (its body must not change while it is sent, or sent again).
 */
export class BodyBuffers {
  readonly #free: Buffer[] = [];

  /** `head`, the lines as the wire's JSON array (what `linesJson` writes), then `tail`. */
  lines(head: string, lines: readonly LogLine[], tail: string): Buffer {
    let buffer = this.#free.pop() ?? Buffer.allocUnsafe(FIRST_BYTES);
    let at = 0;
    const put = (text: string): void => {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: with this much room the text always fits.
      if (at + 3 * text.length > buffer.length) {
        const larger = Buffer.allocUnsafe(Math.max(2 * buffer.length, at + 3 * text.length));
        buffer.copy(larger, 0, 0, at);
        buffer = larger;
      }
      at += buffer.write(text, at);
    };
    put(`${head}[`);
    for (let i = 0; i < lines.length; i++) put(`${i === 0 ? '' : ','}${lineJson(lines[i]!)}`);
    put(`]${tail}`);
    return buffer.subarray(0, at);
  }

  /** The request that sent `body` is over: its buffer may carry the next one. */
  release(body: Buffer): void {
    // Every buffer here is allocated alone (larger than Node's pool), so it is its whole ArrayBuffer.
    const whole = Buffer.from(body.buffer);
    if (whole.length <= KEEP_BYTES && this.#free.length < KEEP_FREE) this.#free.push(whole);
  }
}
