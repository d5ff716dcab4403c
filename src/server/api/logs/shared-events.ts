import type { LogLine } from '../../../core/log.js';
import { ReusedBuffers } from '../../../platform/reused-buffers.js';
import { lineJson } from '../../../runner/client/wire/index.js';

/** Events are put into a chunk's buffer in pieces of about this many characters (young strings). */
const PIECE_CHARS = 32 << 10;

/** One line's event, as every viewer of a log stream gets it. */
export function lineEvent(line: LogLine): string {
  // The wire's writer of one line: what JSON.stringify({pos, out, time}) writes, without its
  // generic walk over an object (measurable at ~100,000 lines a second).
  return `data: ${lineJson(line)}\n\n`;
}

/**
 * A batch of log lines as server-sent events, encoded once for every viewer of the step, in buffers
 * that go back to their encoder once every write of them is over: each viewer passes `hold()` as
 * the callback of its write of each chunk.
 */
export class SharedEvents {
  /** The lines' positions are `first`, `first + 1`, … (one per line, in order). */
  readonly first: number;
  /** The `data:` events, in writes of about the encoder's `writeChars` each. */
  readonly chunks: readonly Buffer[];
  /** Writes not over yet, plus one for the publish that encoded the lines (see SharedEventEncoder). */
  #holds = 1;
  readonly #release: () => void;

  constructor(first: number, chunks: readonly Buffer[], release: () => void) {
    this.first = first;
    this.chunks = chunks;
    this.#release = release;
  }

  /** The callback of one write of one chunk: its bytes stay as they are until it was called. */
  hold(): () => void {
    this.#holds++;
    let called = false;
    return () => {
      if (called) return;
      called = true;
      this.drop();
    };
  }

  /** One hold is over; the last one gives the chunks back. */
  drop(): void {
    this.#holds--;
    if (this.#holds === 0) this.#release();
  }
}

/**
 * Encodes each published batch of a step's live lines once for all its viewers. Each viewer used to
 * encode every line itself: with hundreds of viewers of a flooding step, the server spent its time
 * encoding the same text. And the events are written straight into buffers used again, batch after
 * batch: joined into one string, then copied into a new Buffer, a batch of 10,000 lines touched
 * ~2.6 MB of fresh memory, ~26 ms of the server's time per batch on the benchmark machine
 * (bench/analysis.md, log-throughput).
 */
export class SharedEventEncoder {
  readonly #writeChars: number;
  /** By the array of lines LiveLogs published (one array for all the step's viewers); null: not a run. */
  readonly #encoded = new WeakMap<readonly LogLine[], SharedEvents | null>();
  readonly #buffers: ReusedBuffers;

  /** `writeChars`: about how many characters of events each chunk holds. */
  constructor(writeChars: number) {
    this.#writeChars = writeChars;
    // A chunk ends with the event that brings it past writeChars; free ones kept for the next batch.
    this.#buffers = new ReusedBuffers({
      firstBytes: writeChars + (64 << 10),
      keepBytes: 4 * writeChars,
      keepFree: 4,
    });
  }

  /**
   * The events of `lines`, encoded at the first viewer's asking, when their positions follow each
   * other (as live lines do); undefined otherwise. The viewers of one publish ask while it runs;
   * once it is over (the next turn of the event loop) the encoding is not handed out again, and its
   * buffers go back once the last write of them is over.
   */
  events(lines: readonly LogLine[]): SharedEvents | undefined {
    const known = this.#encoded.get(lines);
    if (known !== undefined) return known ?? undefined;
    const first = lines[0]?.pos;
    if (first === undefined || !lines.every((line, i) => line.pos === first + i)) {
      this.#encoded.set(lines, null);
      return undefined;
    }
    const chunks = this.#encode(lines);
    const events = new SharedEvents(first, chunks, () => {
      for (const chunk of chunks) this.#buffers.release(chunk);
    });
    this.#encoded.set(lines, events);
    setImmediate(() => {
      this.#encoded.set(lines, null);
      events.drop();
    });
    return events;
  }

  #encode(lines: readonly LogLine[]): Buffer[] {
    const chunks: Buffer[] = [];
    let next = 0;
    while (next < lines.length) {
      chunks.push(
        this.#buffers.write((put) => {
          let chars = 0;
          let piece = '';
          while (next < lines.length && chars < this.#writeChars) {
            const event = lineEvent(lines[next++]!);
            chars += event.length;
            piece += event;
            if (piece.length >= PIECE_CHARS) {
              put(piece);
              piece = '';
            }
          }
          put(piece);
        }),
      );
    }
    return chunks;
  }
}
