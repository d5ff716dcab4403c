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
