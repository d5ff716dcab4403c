/**
 * Reads a byte stream in pieces of chosen sizes without copying what it passes on: `take` joins the
 * few bytes of a header, `slices` hands out a file's data as views of the chunks that came in.
 */
export class ChunkReader {
  readonly #source: AsyncIterator<Buffer | Uint8Array | string>;
  #chunk: Buffer = Buffer.alloc(0);
  #offset = 0;
  #ended = false;

  constructor(source: AsyncIterable<Buffer | Uint8Array | string>) {
    this.#source = source[Symbol.asyncIterator]();
  }

  /** Lets go of the source (a stream's iterator destroys the stream) when reading stops early. */
  async close(): Promise<void> {
    if (!this.#ended) await this.#source.return?.();
  }

  /** Exactly `size` bytes, or undefined when the stream ends before (`partial` tells whether some came). */
  async take(size: number): Promise<{ bytes: Buffer } | { partial: boolean }> {
    if (!(await this.#fill())) return { partial: false };
    const available = this.#chunk.length - this.#offset;
    if (available >= size) {
      const bytes = this.#chunk.subarray(this.#offset, this.#offset + size);
      this.#offset += size;
      return { bytes };
    }
    const parts: Buffer[] = [];
    let missing = size;
    while (missing > 0) {
      if (!(await this.#fill())) return { partial: true };
      const piece = this.#chunk.subarray(this.#offset, this.#offset + missing);
      this.#offset += piece.length;
      missing -= piece.length;
      parts.push(piece);
    }
    return { bytes: Buffer.concat(parts, size) };
  }

  /** The next `size` bytes as views of the incoming chunks; throws `truncated()` when the stream ends before. */
  async *slices(size: number, truncated: () => Error): AsyncGenerator<Buffer> {
    let missing = size;
    while (missing > 0) {
      if (!(await this.#fill())) throw truncated();
      const piece = this.#chunk.subarray(this.#offset, this.#offset + missing);
      this.#offset += piece.length;
      missing -= piece.length;
      yield piece;
    }
  }

  /** Skips `size` bytes; throws `truncated()` when the stream ends before. */
  async skip(size: number, truncated: () => Error): Promise<void> {
    let missing = size;
    while (missing > 0) {
      if (!(await this.#fill())) throw truncated();
      const step = Math.min(missing, this.#chunk.length - this.#offset);
      this.#offset += step;
      missing -= step;
    }
  }

  /** Reads and drops whatever is left. */
  async drain(): Promise<void> {
    while (await this.#fill()) this.#offset = this.#chunk.length;
  }

  /** Whether unread bytes are there, reading the next chunk when the current one is used up. */
  async #fill(): Promise<boolean> {
    while (this.#offset >= this.#chunk.length) {
      if (this.#ended) return false;
      const next = await this.#source.next();
      if (next.done === true) {
        this.#ended = true;
        return false;
      }
      const value = next.value;
      this.#chunk =
        typeof value === 'string'
          ? Buffer.from(value)
          : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      this.#offset = 0;
    }
    return true;
  }
}
