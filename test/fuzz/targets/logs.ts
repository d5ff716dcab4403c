import fc from 'fast-check';
import { LineSplitter } from '../../../src/engines/lines.js';
import { createMasker, MASK } from '../../../src/runner/masker.js';
import type { FuzzTarget } from '../target.js';

/** Splits `bytes` at the given offsets, as a stream may deliver them. */
function chunks(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const parts: Buffer[] = [];
  let start = 0;
  for (const cut of at) {
    parts.push(bytes.subarray(start, cut));
    start = cut;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

function splitStream(parts: Buffer[], maxLine: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line), maxLine);
  for (const part of parts) splitter.write(part);
  splitter.end();
  return lines;
}

/** The lines of the whole text at once: what any chunking must give. */
function expectedLines(text: string): string[] {
  const lines = text.split('\n');
  // A newline ends a line; a last line without one still counts (even a lone carriage return).
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

const text = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('\n', '\r\n', '\r', 'é', '日本', '🙂')), {
    maxLength: 30,
  })
  .map((parts) => parts.join(''));

export const lineSplitterTarget: FuzzTarget = {
  name: 'log-lines',
  promise: 'output cut into chunks anywhere (inside CRLF, inside a UTF-8 character) gives the same lines',
  property: () =>
    fc.property(text, fc.array(fc.nat(), { maxLength: 12 }), (output, cuts) => {
      const lines = splitStream(chunks(Buffer.from(output), cuts), 1 << 20);
      const expected = expectedLines(output);
      if (JSON.stringify(lines) !== JSON.stringify(expected)) {
        throw new Error(`got ${JSON.stringify(lines)}, expected ${JSON.stringify(expected)}`);
      }
    }),
};

const secret = fc
  .string({ minLength: 1, maxLength: 16 })
  .filter((s) => !s.includes('\n') && !s.includes('\r'));

export const maskerTarget: FuzzTarget = {
  name: 'log-masker',
  promise: 'a secret printed anywhere in a line, in any chunks, never remains in the text around the masks',
  property: () =>
    fc.property(
      fc.array(secret, { minLength: 1, maxLength: 4 }),
      fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.nat()), { maxLength: 12 }),
      fc.array(fc.nat(), { maxLength: 8 }),
      (secrets, pieces, cuts) => {
        // A line of random text with secrets (chosen by number) in between, cut into chunks.
        const line = pieces
          .map((piece) => (typeof piece === 'number' ? secrets[piece % secrets.length] : piece))
          .join('');
        const mask = createMasker(secrets);
        for (const out of splitStream(chunks(Buffer.from(`${line}\n`), cuts), 1 << 20).map(mask)) {
          for (const part of out.split(MASK)) {
            const leaked = secrets.find((s) => part.includes(s));
            if (leaked !== undefined)
              throw new Error(`secret ${JSON.stringify(leaked)} left in ${JSON.stringify(out)}`);
          }
        }
      },
    ),
};
