import { isMap, isScalar, isSeq, parseAllDocuments, type Node } from 'yaml';

/**
 * The axes of every `matrix:` in a raw pipeline file, read before the build variables are
 * substituted: their `${AXIS}` must come through that pass as written, for each combination to
 * fill in. A file that does not parse has none (its errors are the parse's to report).
 */
export function matrixAxes(raw: string): Set<string> {
  const axes = new Set<string>();
  if (!raw.includes('matrix')) return axes;
  // Only the documents that mention a matrix are read: a file of fifty pipelines with one matrix
  // is not parsed a second time whole (the build's trigger pays for every parse).
  const chunks = raw.split(DOCUMENT_START).filter((chunk) => chunk.includes('matrix'));
  for (const document of chunks.flatMap((chunk) =>
    parseAllDocuments(chunk, { version: '1.1', uniqueKeys: false }),
  )) {
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

/**
 * A line starting a YAML document (`---` at the start of a line): a marker at column 0 ends the
 * document before it even inside a block scalar, so cutting there cuts between documents.
 */
const DOCUMENT_START = /^---(?=[ \t\r\n]|$)/m;

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
