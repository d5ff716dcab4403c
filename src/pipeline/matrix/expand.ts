import type { Diagnostics } from '../diagnostics.js';
import { substituteVariables } from '../substitute.js';
import type { ManifestDocument, Pipeline } from '../types.js';
import { MAX_EXPANDED_NODES, type TreeEntry, type TreeMap, type TreeNode } from '../yaml/tree.js';
import type { Position } from '../diagnostics.js';
import type { Combination } from './read.js';

/** A stage's name for one combination: `test (GO_VERSION=1.22, DATABASE=mysql)`. */
export function combinationName(pipeline: string, combination: Combination): string {
  return `${pipeline} (${combination.map(([axis, value]) => `${axis}=${value}`).join(', ')})`;
}

/** A `${…}` the axes' pass could not read, and where. */
interface Unreadable {
  readonly position: Position;
  readonly message: string;
}

/**
 * The document as one combination reads it: `matrix:` left out, and `${AXIS}` (with any of the
 * build variables' operations, `${AXIS,,}`, `${AXIS:0:4}`) replaced in every string and key by the
 * combination's value. Only the axes: every other `${…}` is left as the build variables' pass
 * left it (`$${X}` written for the shell is `${X}` by now), and no escape is read twice. Values
 * keep their positions, so problems are reported where they are written. A `${…}` that cannot be
 * read (it may have come in with a build variable's value, a commit message) is reported, never
 * dropped: a pipeline does not vanish because of what a commit says.
 */
export function combinationTree(document: TreeMap, combination: Combination): TreeMap | Unreadable {
  const values = new Map(combination);
  let unreadable: Unreadable | undefined;
  const substitute = (text: string, position: Position): string => {
    if (!text.includes('${')) return text;
    const result = substituteVariables(text, (name) => values.get(name), {
      keep: (name) => !values.has(name),
      escapes: false,
    });
    if (result.ok) return result.text;
    unreadable ??= {
      position,
      message: `${result.error.message} in a matrix pipeline, where \${…} names its axes`,
    };
    return text;
  };
  const visit = (node: TreeNode): TreeNode => {
    if (node.kind === 'scalar') {
      if (typeof node.value !== 'string') return node;
      const text = substitute(node.value, node.position);
      return text === node.value ? node : { ...node, value: text, text };
    }
    if (node.kind === 'seq') return { ...node, items: node.items.map(visit) };
    const entries = node.entries.map((entry): TreeEntry => ({
      ...entry,
      key: substitute(entry.key, entry.keyPosition),
      value: visit(entry.value),
    }));
    return { ...node, entries };
  };
  const tree = visit({ ...document, entries: document.entries.filter((entry) => entry.key !== 'matrix') });
  if (unreadable !== undefined) return unreadable;
  return tree as TreeMap;
}

/** Values a document holds (every scalar, list and map), to bound what a matrix multiplies. */
function size(node: TreeNode): number {
  if (node.kind === 'scalar') return 1;
  if (node.kind === 'seq') return node.items.reduce((sum, item) => sum + size(item), 1);
  return node.entries.reduce((sum, entry) => sum + size(entry.value), 1);
}

/**
 * Each combination's pipeline, named after it, read as `read` reads the file's documents; a problem
 * that every combination has is reported once. A matrix whose combinations would hold more values
 * than MAX_EXPANDED_NODES all together is refused: 256 copies of a large pipeline are an attack on
 * the server's memory, not a build.
 */
export function expandMatrix(
  document: TreeMap,
  pipelineName: string,
  combinations: readonly Combination[],
  read: (tree: TreeMap, diagnostics: Diagnostics) => ManifestDocument | undefined,
  diagnostics: Diagnostics,
): Pipeline[] {
  const values = size(document);
  if (values * combinations.length > MAX_EXPANDED_NODES) {
    diagnostics.error(
      document.position,
      'matrix',
      `${combinations.length} combinations of a pipeline of ${values} values make more than ${MAX_EXPANDED_NODES} values; expected fewer combinations or a smaller pipeline`,
    );
    return [];
  }
  const pipelines: Pipeline[] = [];
  for (const combination of combinations) {
    const tree = combinationTree(document, combination);
    if (!('kind' in tree)) {
      diagnostics.error(tree.position, '', tree.message);
      continue;
    }
    const pipeline = read(tree, diagnostics);
    if (pipeline?.kind !== 'pipeline') continue;
    pipelines.push({ ...pipeline, name: combinationName(pipelineName, combination), matrix: combination });
  }
  return pipelines;
}

/**
 * `depends_on` naming a matrix pipeline means all its combinations; a combination can also be named
 * by itself (`test (GO_VERSION=1.22)`).
 */
export function expandDependencies(
  documents: readonly ManifestDocument[],
  matrices: ReadonlyMap<string, readonly string[]>,
): ManifestDocument[] {
  if (matrices.size === 0) return [...documents];
  return documents.map((document) => {
    if (document.kind !== 'pipeline') return document;
    if (!document.dependsOn.some((name) => matrices.has(name))) return document;
    return { ...document, dependsOn: document.dependsOn.flatMap((name) => matrices.get(name) ?? [name]) };
  });
}
