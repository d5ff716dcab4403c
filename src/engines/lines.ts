import { StringDecoder } from 'node:string_decoder';
import type { OutputSink } from '../core/engine.js';

/** Longest line (in characters) passed on whole; a longer run without a newline is cut here. */
export const MAX_LINE_CHARS = 1024 * 1024;

const CR = 13;

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
    const text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    const data = this.partial === '' ? text : this.partial + text;
    // Lines are cut from `data` by index: a followed log often brings one line per chunk, and a
    // big chunk many, neither of which should cost a copy of the rest per line.
    let start = 0;
    for (let newline = data.indexOf('\n'); newline >= 0; newline = data.indexOf('\n', start)) {
      this.emit(data.slice(start, newline));
      start = newline + 1;
    }
    let rest = start === 0 ? data : data.slice(start);
    while (rest.length > this.maxLine) {
      this.sink(rest.slice(0, this.maxLine));
      rest = rest.slice(this.maxLine);
    }
    this.partial = rest;
  }

  /** The stream ended: passes on the last line if it had no newline. */
  end(): void {
    this.partial += this.decoder.end();
    if (this.partial !== '') this.emit(this.partial);
    this.partial = '';
  }

  private emit(line: string): void {
    this.sink(line.charCodeAt(line.length - 1) === CR ? line.slice(0, -1) : line);
  }
}
