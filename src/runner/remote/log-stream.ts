import type { Logger } from 'pino';
import type { LogLine } from '../../core/log.js';
import { isRetriable } from '../client/errors.js';
import { Backoff, type BackoffOptions } from './backoff.js';

/** What the server already holds of a finished step's log when it is uploaded. */
export interface StoredBatches {
  /** Batches 0 … `batches` − 1 were acknowledged… */
  batches: number;
  /** …and hold the first `lines` lines of the log. */
  lines: number;
}

/** How one step's lines travel to the server. */
export interface LogStreamOptions {
  /** Sends batch `batch` (numbered from 0); resolves once the server stored it. */
  send(batch: number, lines: readonly LogLine[]): Promise<unknown>;
  /**
   * Delivers the log once the step is over, retrying until acknowledged: `stored` says which
   * acknowledged batches hold its beginning, `rest` are the lines after them, `all` every line.
   */
  upload(stored: StoredBatches, rest: readonly LogLine[], all: readonly LogLine[]): Promise<void>;
  /** A line waits at most this long (ms) before a batch is sent (when none is on its way)… */
  interval: number;
  /** …and a batch goes at once when this many lines wait; also the most lines a batch carries. */
  maxLines: number;
  /** A batch carries at most this many bytes of text (but at least one line); this many waiting also sends. */
  maxBytes: number;
  backoff: BackoffOptions;
  logger: Logger;
}

/** A batch that was sent at least once: if it must go again, it goes with the same number and lines. */
interface Attempted {
  batch: number;
  end: number;
}

/** Bytes a line adds to a batch besides its text (`{"pos":…,"out":"","time":…},`). */
const LINE_OVERHEAD = 32;

/**
 * The lines of one running step, on their way to the server in numbered batches. Every line is kept
 * (the final upload may need them all); lines acknowledged so far are the prefix up to
 * `acknowledged`. One batch is on its way at a time. A batch goes as soon as a full one waits
 * (`maxLines` or `maxBytes`), otherwise once its first line has waited `interval`: a step that
 * prints fast sends few large requests, one that prints slowly sends each line within `interval`.
 * A batch that was sent keeps its number and content until acknowledged, so the server drops it if
 * it had it already; lines that come meanwhile go in later batches. While the server is unreachable
 * the lines wait in memory and the batch is retried with a growing pause; a batch the server
 * refuses ends streaming for the step (the final upload still carries every line).
 */
export class LogStream {
  readonly #options: LogStreamOptions;
  readonly #lines: LogLine[] = [];
  readonly #backoff: Backoff;
  #acked = 0;
  #ackedBatches = 0;
  #nextBatch = 0;
  /** The batch on its way, or to be sent again. */
  #attempted: Attempted | undefined;
  /** Lines from here on are in no batch yet… */
  #unbatched = 0;
  /** …and weigh this many bytes (text length plus LINE_OVERHEAD each)… */
  #unbatchedBytes = 0;
  /** …the first of them came at this time (epoch ms). */
  #unbatchedSince = 0;
  #sending: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** After a failed send: no batch goes before this time (epoch ms). */
  #retryAt = 0;
  #started = false;
  #stopped = false;
  #refused = false;
  /** Resolves the promise `room` handed out while the step's lines were to wait. */
  #roomMade: (() => void) | undefined;
  #roomWait: Promise<void> | undefined;

  constructor(options: LogStreamOptions) {
    this.#options = options;
    this.#backoff = new Backoff(options.backoff);
  }

  /** The step started: lines go out from now on until `finish`. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#next();
  }

  /** A new line of the step (in order). */
  add(line: LogLine): void {
    if (this.#lines.length === this.#unbatched) this.#unbatchedSince = Date.now();
    this.#lines.push(line);
    this.#unbatchedBytes += line.out.length + LINE_OVERHEAD;
    if (this.#sending === undefined) this.#next();
  }

  /**
   * Whether the step may print on (undefined), or a promise that resolves when it may: its lines
   * wait while a full batch (`maxLines` or `maxBytes`) waits behind the one on its way, so that a
   * step printing faster than the server stores is paced at about two batches ahead of it (its live
   * viewers see lines that recent) instead of piling up here. Never while the server does not
   * acknowledge (a retry is due later), has refused the stream, or the step is over: then lines
   * wait in memory, as the step must not stall for the server.
   */
  room(): Promise<void> | undefined {
    if (!this.#full()) return undefined;
    this.#roomWait ??= new Promise<void>((resolve) => (this.#roomMade = resolve));
    return this.#roomWait;
  }

  #full(): boolean {
    if (!this.#started || this.#stopped || this.#refused || this.#retryAt > Date.now()) return false;
    const waiting = this.#lines.length - this.#unbatched;
    return waiting >= this.#options.maxLines || this.#unbatchedBytes >= this.#options.maxBytes;
  }

  /** Lets a paced step go on once it has room. */
  #makeRoom(): void {
    if (this.#roomMade === undefined || this.#full()) return;
    const made = this.#roomMade;
    this.#roomMade = undefined;
    this.#roomWait = undefined;
    made();
  }

  /** Lines the server has acknowledged. */
  get acknowledged(): number {
    return this.#acked;
  }

  /** Every line so far. */
  get lines(): readonly LogLine[] {
    return this.#lines;
  }

  /**
   * The step is over: stops streaming (a batch on its way is let finish, not retried) and uploads
   * the log, retrying until acknowledged.
   */
  async finish(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#stopped = true;
    this.#makeRoom();
    await this.#sending;
    await this.#options.upload(
      { batches: this.#ackedBatches, lines: this.#acked },
      this.#lines.slice(this.#acked),
      this.#lines,
    );
  }

  /** Milliseconds until the next batch is due (0: now), Infinity when nothing waits. */
  #due(now: number): number {
    if (this.#attempted !== undefined) return Math.max(0, this.#retryAt - now);
    const waiting = this.#lines.length - this.#unbatched;
    if (waiting === 0) return Infinity;
    const { maxLines, maxBytes, interval } = this.#options;
    if (waiting >= maxLines || this.#unbatchedBytes >= maxBytes) return Math.max(0, this.#retryAt - now);
    return Math.max(0, this.#unbatchedSince + interval - now, this.#retryAt - now);
  }

  /** Sends now if a batch is due, else sets the timer for when one will be (nothing is on its way). */
  #next(): void {
    if (!this.#started || this.#stopped || this.#refused) return;
    const due = this.#due(Date.now());
    if (due === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#sending = this.#pump().finally(() => {
        this.#sending = undefined;
        this.#makeRoom();
        this.#next();
      });
    } else if (due !== Infinity && this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        if (this.#sending === undefined) this.#next();
      }, due);
    }
  }

  /** Sends due batches one after the other until none is due, a send fails, or the step is over. */
  async #pump(): Promise<void> {
    while (!this.#stopped && this.#due(Date.now()) === 0) {
      this.#attempted ??= this.#cut();
      // The lines just batched leave room for more while this batch is on its way.
      this.#makeRoom();
      const { batch, end } = this.#attempted;
      try {
        await this.#options.send(batch, this.#lines.slice(this.#acked, end));
      } catch (error) {
        if (isRetriable(error)) {
          this.#retryAt = Date.now() + this.#backoff.next();
          this.#options.logger.debug(
            { err: error, batch },
            'log batch not acknowledged; keeping it for later',
          );
        } else {
          this.#refused = true;
          this.#options.logger.warn(
            { err: error, batch },
            'the server refused a log batch; the log goes at the end of the step',
          );
        }
        return;
      }
      this.#acked = end;
      this.#ackedBatches = batch + 1;
      this.#attempted = undefined;
      this.#backoff.reset();
    }
  }

  /** The next batch: the unbatched lines, within the limits (at least one line). */
  #cut(): Attempted {
    const from = this.#unbatched;
    const lines = this.#lines;
    const { maxLines, maxBytes } = this.#options;
    let end = from;
    let bytes = 0;
    let counted = 0;
    while (end < lines.length && end - from < maxLines) {
      const out = lines[end]?.out ?? '';
      // The text's length is its size in bytes for ASCII; only near the limit is the exact size needed.
      let size = out.length + LINE_OVERHEAD;
      if (bytes + size * 3 > maxBytes) size = Buffer.byteLength(out, 'utf8') + LINE_OVERHEAD;
      if (end > from && bytes + size > maxBytes) break;
      bytes += size;
      counted += out.length + LINE_OVERHEAD;
      end++;
    }
    this.#unbatched = end;
    this.#unbatchedBytes -= counted;
    // Lines left over came before now; counting them from now delays them by less than `interval`.
    if (end < lines.length) this.#unbatchedSince = Date.now();
    return { batch: this.#nextBatch++, end };
  }
}
