const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** A size in bytes for people: `512 B`, `1.5 KiB`, `46.0 MiB`. */
export function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${UNITS[unit] ?? ''}`;
}

/** A test's duration in milliseconds for people: `12 ms`, `1.2 s`, `2m 05s`. */
export function millis(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}
