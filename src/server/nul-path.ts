/**
 * The path (`a.b.0`) of the first string — value or key — with a NUL character in `value`; undefined
 * when none. Input with NUL is refused before it reaches the database: PostgreSQL cannot store NUL
 * in a text column, so the write would fail as a server error.
 */
export function nulPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    // An empty or blank name (`?=x`) is quoted, so that the message still shows it.
    const name = /^\S+$/.test(key) ? key : JSON.stringify(key);
    const at = path === '' ? name : `${path}.${name}`;
    if (key.includes('\u0000')) return at;
    const found = nulPath(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
