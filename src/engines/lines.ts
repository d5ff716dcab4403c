import { StringDecoder } from 'node:string_decoder';
import type { OutputSink } from '../core/engine.js';

/** Longest line (in characters) passed on whole; a longer run without a newline is cut here. */
export const MAX_LINE_CHARS = 1024 * 1024;

/**
 * Turns a byte stream of output into lines for an OutputSink. Chunks may end anywhere — inside a
 * line, inside a CRLF, inside a multi-byte UTF-8 character — so it keeps the partial line until
 * its newline arrives, and `end` passes on a last line that has none. Engines use one per stream
 * (stdout and stderr apart, so that their partial lines never mix).
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';

  constructor(
    private readonly sink: OutputSink,
    private readonly maxLine = MAX_LINE_CHARS,
  ) {}

  /** Takes the next chunk of the stream and passes on every line it completes. */
  write(chunk: Buffer | string): void {
    this.partial += typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    let newline: number;
    while ((newline = this.partial.indexOf('\n')) >= 0) {
      this.emit(this.partial.slice(0, newline));
      this.partial = this.partial.slice(newline + 1);
    }
    while (this.partial.length > this.maxLine) {
      this.sink(this.partial.slice(0, this.maxLine));
      this.partial = this.partial.slice(this.maxLine);
    }
  }

  /** The stream ended: passes on the last line if it had no newline. */
  end(): void {
    this.partial += this.decoder.end();
    if (this.partial !== '') this.emit(this.partial);
    this.partial = '';
  }

  private emit(line: string): void {
    this.sink(line.endsWith('\r') ? line.slice(0, -1) : line);
  }
}
