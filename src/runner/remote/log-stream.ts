import type { Logger } from 'pino';
import type { LogLine } from '../../core/log.js';
import { isRetriable } from '../client/errors.js';
import { Backoff, type BackoffOptions } from './backoff.js';

/** How one step's lines travel to the server. */
export interface LogStreamOptions {
  /** Sends batch `batch` (numbered from 0); resolves once the server stored it. */
  send(batch: number, lines: readonly LogLine[]): Promise<unknown>;
  /** Sends the whole log once the step is over, retrying until acknowledged. */
  upload(lines: readonly LogLine[]): Promise<void>;
  /** Lines go out at least this often (ms)… */
  interval: number;
  /** …and as soon as this many wait. */
  maxLines: number;
  /** A batch carries at most this many bytes of text (but at least one line). */
  maxBytes: number;
  backoff: BackoffOptions;
  logger: Logger;
}

/** A batch that was sent at least once: if it must go again, it goes with the same number and lines. */
interface Attempted {
  batch: number;
  end: number;
}

/**
 * The lines of one running step, on their way to the server in numbered batches. Every line is kept
 * (the final upload sends them all); lines acknowledged so far are the prefix up to `acknowledged`.
 * A batch that was sent keeps its number and content until acknowledged, so the server drops it if
 * it had it already; lines added meanwhile go in later batches. While the server is unreachable
 * the lines wait in memory and the batch is retried with a growing pause; a batch the server
 * refuses ends streaming for the step (the final upload still carries every line).
 */
export class LogStream {
  readonly #options: LogStreamOptions;
  readonly #lines: LogLine[] = [];
  readonly #backoff: Backoff;
  #acked = 0;
  #nextBatch = 0;
  #attempted: Attempted | undefined;
  #sending: Promise<void> | undefined;
  #retryAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #refused = false;

  constructor(options: LogStreamOptions) {
    this.#options = options;
    this.#backoff = new Backoff(options.backoff);
  }

  /** Sends what waits every `interval` until `finish`. */
  start(): void {
    this.#timer ??= setInterval(() => this.#kick(), this.#options.interval);
  }

  /** A new line of the step (in order). */
  add(line: LogLine): void {
    this.#lines.push(line);
    if (this.#lines.length - this.#acked >= this.#options.maxLines) this.#kick();
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
   * the whole log, retrying until acknowledged.
   */
  async finish(): Promise<void> {
    clearInterval(this.#timer);
    this.#stopped = true;
    await this.#sending;
    await this.#options.upload(this.#lines);
  }

  #kick(): void {
    if (this.#sending !== undefined || this.#stopped || this.#refused || Date.now() < this.#retryAt) return;
    this.#sending = this.#pump().finally(() => {
      this.#sending = undefined;
    });
  }

  async #pump(): Promise<void> {
    while (!this.#stopped) {
      this.#attempted ??= this.#cut();
      if (this.#attempted === undefined) return;
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
      this.#attempted = undefined;
      this.#backoff.reset();
    }
  }

  /** The next batch: waiting lines from the first unacknowledged one, within the limits. */
  #cut(): Attempted | undefined {
    const from = this.#acked;
    if (from >= this.#lines.length) return undefined;
    let end = from;
    let bytes = 0;
    while (end < this.#lines.length && end - from < this.#options.maxLines) {
      const size = Buffer.byteLength(this.#lines[end]?.out ?? '', 'utf8') + 32;
      if (end > from && bytes + size > this.#options.maxBytes) break;
      bytes += size;
      end++;
    }
    return { batch: this.#nextBatch++, end };
  }
}
