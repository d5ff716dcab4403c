import type { LogLine } from '../../core/log.js';
import { ReusedBuffers } from '../../platform/reused-buffers.js';
import { lineJson } from './wire/lines.js';

/**
 * Request bodies of log lines, written into buffers used again (ReusedBuffers): building a batch as
 * one string took ~20 ms of CPU per 10,000-line batch on the benchmark machine, ~3 ms this way
 * (bench/analysis.md, log-throughput). A body is the caller's from `lines` until it `release`s it,
 * after its request is over (it must not change while it is sent, or sent again).
 */
export class BodyBuffers {
  // Enough for a batch of 10,000 lines of 100 bytes; one free buffer per step sending at once, mostly.
  readonly #buffers = new ReusedBuffers({ firstBytes: 2 << 20, keepBytes: 8 << 20, keepFree: 4 });

  /** `head`, the lines as the wire's JSON array (what `linesJson` writes), then `tail`. */
  lines(head: string, lines: readonly LogLine[], tail: string): Buffer {
    return this.#buffers.write((put) => {
      put(`${head}[`);
      for (let i = 0; i < lines.length; i++) put(`${i === 0 ? '' : ','}${lineJson(lines[i]!)}`);
      put(`]${tail}`);
    });
  }

  /** The request that sent `body` is over: its buffer may carry the next one. */
  release(body: Buffer): void {
    this.#buffers.release(body);
  }
}
