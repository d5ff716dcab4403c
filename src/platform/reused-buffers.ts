/** How a set of ReusedBuffers sizes and keeps its buffers. */
export interface ReusedBuffersSizes {
  /** What a new buffer starts at. */
  readonly firstBytes: number;
  /** Buffers larger than this are not kept once released. */
  readonly keepBytes: number;
  /** Free buffers kept for the next bodies. */
  readonly keepFree: number;
}

/** Appends a text to the body being written. */
export type PutText = (text: string) => void;

/**
 * Bodies written as UTF-8 into buffers that are used again, body after body. A body built as one
 * large string, then encoded for the socket, touches a megabyte of fresh memory twice, and fresh
 * memory is slow to touch: ~20 µs per 4 KiB page on the benchmark machine, so ~10 ms per MiB
 * (bench/analysis.md). A buffer used before costs nothing of that. A body is its caller's from
 * `write` until it `release`s it, once nothing reads it any more (its bytes would change under a
 * socket still sending them); a body never released is left to the garbage collector.
 */
export class ReusedBuffers {
  readonly #free: Buffer[] = [];
  readonly #sizes: ReusedBuffersSizes;

  constructor(sizes: ReusedBuffersSizes) {
    this.#sizes = sizes;
  }

  /** The body `fill` writes, text after text, in a buffer of its own until released. */
  write(fill: (put: PutText) => void): Buffer {
    let buffer = this.#free.pop() ?? Buffer.allocUnsafe(this.#sizes.firstBytes);
    let at = 0;
    fill((text) => {
      // UTF-8 takes at most 3 bytes per UTF-16 unit: with this much room the text always fits.
      if (at + 3 * text.length > buffer.length) {
        const larger = Buffer.allocUnsafe(Math.max(2 * buffer.length, at + 3 * text.length));
        buffer.copy(larger, 0, 0, at);
        buffer = larger;
      }
      at += buffer.write(text, at);
    });
    return buffer.subarray(0, at);
  }

  /** Nothing reads `body` any more: its buffer may carry the next one. */
  release(body: Buffer): void {
    // Every buffer here is allocated alone (larger than Node's pool), so it is its whole ArrayBuffer.
    const whole = Buffer.from(body.buffer);
    if (whole.length <= this.#sizes.keepBytes && this.#free.length < this.#sizes.keepFree)
      this.#free.push(whole);
  }
}
