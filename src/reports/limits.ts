/**
 * Caps that keep one report from taking unbounded memory or time. A CI service parses files that
 * anyone's test run produced, so every size is bounded by a named constant.
 */
export const MAX_REPORT_BYTES = 20 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 4 * 1024;
export const MAX_OUTPUT_BYTES = 64 * 1024;
export const MAX_TESTS_PER_REPORT = 100_000;
/** Real reports nest suites a few levels deep; this bound keeps recursion and the stack small. */
export const MAX_XML_DEPTH = 64;
/** Beyond this many, problems are counted rather than listed, so junk input cannot flood them. */
export const MAX_PROBLEMS_LISTED = 50;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Cuts `text` to at most `maxBytes` of UTF-8, saying so at the end, never splitting a character. */
export function capText(text: string, maxBytes: number): string {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes, so short texts skip the encoding.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  const marker = `\n… [cut: ${bytes.length - maxBytes} more bytes]`;
  const kept = decoder.decode(bytes.subarray(0, Math.max(0, maxBytes - encoder.encode(marker).length)));
  return kept.replace(/\uFFFD$/, '') + marker;
}

/** Collects problems, listing the first MAX_PROBLEMS_LISTED and counting the rest. */
export class ProblemList {
  private readonly listed: string[] = [];
  private unlisted = 0;

  add(problem: string): void {
    if (this.listed.length < MAX_PROBLEMS_LISTED) this.listed.push(problem);
    else this.unlisted++;
  }

  toArray(): string[] {
    if (this.unlisted === 0) return [...this.listed];
    return [...this.listed, `${this.unlisted} more problems not listed`];
  }
}

/** Where offset `offset` of `text` lies, as 1-based line and column, for error messages. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
