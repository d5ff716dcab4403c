/** What a secret value is replaced with in output. */
export const MASK = '********';

/** Masks secret values in one line of output. */
export type Masker = (line: string) => string;

/**
 * Returns a masker for `values` (the data of every secret marked for masking).
 * Output reaches the runner line by line, so a multi-line secret never appears whole in one line:
 * each of its lines is masked on its own, wherever it appears (as drone's runner does). That also
 * hides a key printed only in part. Lines of a multi-line secret shorter than two characters after
 * trimming (`}`, a blank line) are structure, not secret, and masking them would wreck the log.
 */
export function createMasker(values: readonly string[]): Masker {
  const needles = new Set<string>();
  for (const value of values) {
    const normalized = value.replace(/\r\n?/g, '\n');
    if (!normalized.includes('\n')) {
      if (normalized !== '') needles.add(normalized);
      continue;
    }
    for (const part of normalized.split('\n')) {
      const trimmed = part.trim();
      if (trimmed.length >= 2) needles.add(trimmed);
    }
  }
  if (needles.size === 0) return (line) => line;
  // Longest first: where two values overlap, the alternation must consume the longer one whole.
  const sorted = [...needles].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  return (line) => line.replace(pattern, MASK);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
