import type { ReportFormat } from './types.js';

/** How far into a file detection looks: the first meaningful line settles it. */
const DETECT_WINDOW = 4096;

/**
 * Guesses the format from the start of the content: `<` is JUnit XML, `{` is go test -json, and
 * `TAP version`, `1..N`, `ok` or `not ok` is TAP. Leading lines of build noise before the first
 * JSON event are tolerated. Undefined when nothing matches.
 */
export function detectFormat(text: string): ReportFormat | undefined {
  const head = text.slice(0, DETECT_WINDOW).replace(/^\uFEFF/, '');
  const trimmed = head.trimStart();
  if (trimmed.startsWith('<')) return 'junit';
  for (const raw of head.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('{"')) return 'go-test-json';
    if (/^(TAP version \d+|1\.\.\d+|ok\b|not ok\b)/.test(line)) return 'tap';
  }
  return undefined;
}
