/**
 * `value` with the member at `path` replaced by `replacement`: each step picks a key of an object
 * or an item of an array (modulo its size), so that any list of numbers names some member. Fuzzing
 * targets use it to break one field of a real, valid payload: deeper into the code than random JSON.
 */
export function mutate(value: unknown, path: readonly number[], replacement: unknown): unknown {
  if (path.length === 0 || value === null || typeof value !== 'object') return replacement;
  const [step = 0, ...rest] = path;
  if (Array.isArray(value)) {
    const list = value as unknown[];
    if (list.length === 0) return replacement;
    const index = step % list.length;
    return list.map((item, i) => (i === index ? mutate(item, rest, replacement) : item));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const key = keys[step % keys.length] ?? '';
  return { ...value, [key]: mutate((value as Record<string, unknown>)[key], rest, replacement) };
}
