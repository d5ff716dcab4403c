import type { LogLine } from '../../../core/log.js';
import type { WireBatch, WireLine, WireUpload } from './schemas.js';
import { INT32_MAX } from './schemas.js';

/**
 * The JSON of log lines on the wire, `JSON.stringify` of `{pos, out, time}` objects (other
 * properties left out), built by hand: about twice as fast, for batches of thousands of lines.
 */
export function linesJson(lines: readonly LogLine[]): string {
  let json = '[';
  for (let i = 0; i < lines.length; i++) json += `${i === 0 ? '' : ','}${lineJson(lines[i]!)}`;
  return `${json}]`;
}

/** One line of linesJson. */
export function lineJson({ pos, out, time }: LogLine): string {
  return `{"pos":${jsonNumber(pos)},"out":${JSON.stringify(out)},"time":${jsonNumber(time)}}`;
}

/** A number as JSON writes it (non-finite ones as null). */
function jsonNumber(value: number): number | 'null' {
  return Number.isFinite(value) ? value : 'null';
}

/**
 * Reads an array of log lines exactly as `z.array(wireLine)` does, without zod's work per object: a
 * batch holds thousands of lines and a finished log millions. Undefined as soon as anything does not
 * match: parse with the schema then, for the message.
 */
export function readLines(value: unknown): WireLine[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const lines = new Array<WireLine>(value.length);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'object' || item === null) return undefined;
    const { pos, out, time } = item as Partial<Record<keyof WireLine, unknown>>;
    if (typeof pos !== 'number' || !Number.isSafeInteger(pos) || pos < 0 || typeof out !== 'string') {
      return undefined;
    }
    let seconds = 0;
    if (typeof time === 'number') seconds = Math.max(0, Math.floor(time));
    else if (time !== undefined && time !== null) return undefined;
    lines[i] = { pos, out, time: seconds };
  }
  return lines;
}

/**
 * Lines whose JSON, stored as it is, reads back as exactly these lines: each an object of `pos`,
 * `out` and `time` alone, `time` a whole number of seconds (what readLines would otherwise round or
 * fill in). Undefined otherwise.
 */
function exactLines(value: unknown): WireLine[] | undefined {
  const lines = readLines(value);
  if (lines === undefined) return undefined;
  const items = value as Record<string, unknown>[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.time !== lines[i]!.time || Object.keys(item).length !== 3) return undefined;
  }
  return lines;
}

const NUMBERED_BATCH = /^\{"batch":(0|[1-9]\d{0,9}),"lines":/;

/**
 * A numbered batch in the form svc runners write it, `{"batch":N,"lines":[…]}` with nothing else,
 * read from its text: the lines, and their JSON as it came, which the server stores unchanged
 * instead of writing it again (it reads back as exactly these lines, see exactLines). Undefined for
 * any other text: parse it, and read it with readBatch then.
 */
export function readBatchText(text: string): { batch: number; lines: WireLine[]; json: string } | undefined {
  const head = NUMBERED_BATCH.exec(text);
  if (head === null || text.charCodeAt(text.length - 1) !== 0x7d /* } */) return undefined;
  const batch = Number(head[1]);
  if (batch > INT32_MAX) return undefined;
  // Parsing the lines' text alone proves the whole text is this one object: no key twice, nothing after.
  const json = text.slice(head[0].length, -1);
  // Stored batches are joined by their brackets (joinJsonArrays): no space around them.
  if (json.charCodeAt(0) !== 0x5b || json.charCodeAt(json.length - 1) !== 0x5d) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const lines = exactLines(value);
  return lines && { batch, lines, json };
}

/** `wireBatch` read the fast way (see readLines); undefined when it does not match. */
export function readBatch(value: unknown): WireBatch | undefined {
  if (Array.isArray(value)) return readLines(value);
  const numbered = readNumbered(value, 'batch');
  return numbered && { batch: numbered.number, lines: numbered.lines };
}

/** `wireUpload` read the fast way (see readLines); undefined when it does not match. */
export function readUpload(value: unknown): WireUpload | undefined {
  if (Array.isArray(value)) return readLines(value);
  const numbered = readNumbered(value, 'batches');
  return numbered && { batches: numbered.number, lines: numbered.lines };
}

function readNumbered(value: unknown, key: string): { number: number; lines: WireLine[] } | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const number = (value as Record<string, unknown>)[key];
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > INT32_MAX) {
    return undefined;
  }
  const lines = readLines((value as Record<string, unknown>).lines);
  return lines && { number, lines };
}
