/**
 * Reads a JUnit `time` attribute (seconds) as milliseconds. Writers differ: most write `0.012`,
 * some locales make surefire write thousands separators (`1,234.5`) or a decimal comma (`0,5`).
 * Returns undefined when the text is not a number, so the caller can say so.
 */
export function parseSeconds(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return 0;
  const seconds = Number(normalise(raw.trim()));
  if (!Number.isFinite(seconds) || seconds < 0) return undefined;
  return Math.round(seconds * 1000);
}

function normalise(time: string): string {
  if (time.length > 40) return 'NaN';
  const comma = time.lastIndexOf(',');
  if (comma === -1) return time;
  const dot = time.lastIndexOf('.');
  // Both separators: the later one is the decimal point, the other groups thousands.
  if (dot !== -1) return dot > comma ? time.replaceAll(',', '') : time.replaceAll('.', '').replace(',', '.');
  // Only commas: groups of exactly three digits are thousands (`1,234`), otherwise a decimal comma.
  if (/^[1-9]\d{0,2}(,\d{3})+$/.test(time)) return time.replaceAll(',', '');
  return time.replace(',', '.');
}
