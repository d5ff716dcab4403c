import type { VerbContext } from './command.js';

/** Prints JSON for scripts (`--format json`), pretty, with a final newline. */
export function printJson(context: Pick<VerbContext, 'io'>, value: unknown): void {
  context.io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Columns aligned on the widest cell; no trailing spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(headers), ...rows.map(line)].join('\n')}\n`;
}

/** `--format json` prints the value as the server gave it; otherwise `render` makes the text. */
export function show<T>(context: VerbContext, value: T, render: (value: T) => string): void {
  if (context.json) printJson(context, value);
  else context.io.stdout(render(value));
}

/** Epoch seconds as a UTC date and time; `-` for 0. */
export function when(seconds: unknown): string {
  if (typeof seconds !== 'number' || seconds <= 0) return '-';
  return new Date(seconds * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

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

/** `key: value` lines, keys aligned. */
export function fields(entries: readonly (readonly [string, unknown])[]): string {
  const width = Math.max(...entries.map(([key]) => key.length));
  return (
    entries.map(([key, value]) => `${`${key}:`.padEnd(width + 1)} ${text(value)}`.trimEnd()).join('\n') + '\n'
  );
}

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return value === undefined || value === null ? '' : JSON.stringify(value);
}
