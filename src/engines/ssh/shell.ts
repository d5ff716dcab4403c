/** A word for a POSIX shell: single-quoted, inner single quotes closed and escaped. */
export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
