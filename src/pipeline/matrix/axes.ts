import { isMap, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';

/**
 * The axes of every `matrix:` in a raw pipeline file, read before the build variables are
 * substituted: their `${AXIS}` must come through that pass as written, for each combination to
 * fill in. A file that does not parse has none (its errors are the parse's to report).
 */
export function matrixAxes(raw: string): Set<string> {
  const axes = new Set<string>();
  if (!raw.includes('matrix')) return axes;
  for (const document of parseAllDocuments(raw, { version: '1.1', uniqueKeys: false })) {
    if (!('contents' in document) || document.errors.length > 0) continue;
    const matrix = valueOf(document.contents, 'matrix');
    if (!isMap(matrix)) continue;
    for (const pair of matrix.items) {
      const name = keyText(pair.key);
      if (name === undefined) continue;
      if (name !== 'include') axes.add(name);
      else if (isSeq(pair.value))
        for (const item of pair.value.items)
          if (isMap(item)) for (const inner of item.items) addKey(axes, inner.key);
    }
  }
  return axes;
}

function valueOf(node: unknown, key: string): unknown {
  if (!isMap(node)) return undefined;
  return node.items.find((pair) => keyText(pair.key) === key)?.value;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String((key as Node & { value: unknown }).value) : undefined;
}

function addKey(axes: Set<string>, key: unknown): void {
  const name = keyText(key);
  if (name !== undefined) axes.add(name);
}
