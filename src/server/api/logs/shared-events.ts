import type { LogLine } from '../../../core/log.js';

/** A batch of log lines as server-sent events, encoded once for every viewer of the step. */
export interface SharedEvents {
  /** The lines' positions are `first`, `first + 1`, … (one per line, in order). */
  readonly first: number;
  /** The `data:` events, in writes of about `writeChars` each. */
  readonly chunks: readonly Buffer[];
}

/** By the array of lines LiveLogs published (one array for all the step's viewers); null: not a run. */
const encoded = new WeakMap<readonly LogLine[], SharedEvents | null>();

/** One line's event, as every viewer of a log stream gets it. */
export function lineEvent({ pos, out, time }: LogLine): string {
  return `data: ${JSON.stringify({ pos, out, time })}\n\n`;
}

/**
 * The events of `lines` encoded once and kept as long as the array lives, when their positions
 * follow each other (as live lines do); undefined otherwise. Each viewer used to encode every
 * line itself: with hundreds of viewers of a flooding step, the server spent its time encoding
 * the same text, and each slow viewer's socket held its own copy.
 */
export function sharedEvents(lines: readonly LogLine[], writeChars: number): SharedEvents | undefined {
  const known = encoded.get(lines);
  if (known !== undefined) return known ?? undefined;
  const first = lines[0]?.pos;
  const run = first !== undefined && lines.every((line, i) => line.pos === first + i);
  const events = run ? { first, chunks: encode(lines, writeChars) } : null;
  encoded.set(lines, events);
  return events ?? undefined;
}

function encode(lines: readonly LogLine[], writeChars: number): Buffer[] {
  const chunks: Buffer[] = [];
  let text = '';
  for (const line of lines) {
    text += lineEvent(line);
    if (text.length >= writeChars) {
      chunks.push(Buffer.from(text));
      text = '';
    }
  }
  if (text !== '') chunks.push(Buffer.from(text));
  return chunks;
}
