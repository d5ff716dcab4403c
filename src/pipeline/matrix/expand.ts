import type { Diagnostics } from '../diagnostics.js';
import { substituteVariables } from '../substitute.js';
import type { ManifestDocument, Pipeline } from '../types.js';
import type { TreeEntry, TreeMap, TreeNode } from '../yaml/tree.js';
import type { Combination } from './read.js';

/** A stage's name for one combination: `test (GO_VERSION=1.22, DATABASE=mysql)`. */
export function combinationName(pipeline: string, combination: Combination): string {
  return `${pipeline} (${combination.map(([axis, value]) => `${axis}=${value}`).join(', ')})`;
}

/**
 * The document as one combination reads it: `matrix:` left out, and `${AXIS}` (with any of the
 * build variables' operations, `${AXIS,,}`, `${AXIS:0:4}`) replaced in every string and key by the
 * combination's value. Only the axes: every other `${…}` is left as the build variables' pass
 * left it (`$${X}` written for the shell is `${X}` by now), and no escape is read twice. Values
 * keep their positions, so problems are reported where they are written.
 */
export function combinationTree(document: TreeMap, combination: Combination): TreeMap | undefined {
  const values = new Map(combination);
  const substitute = (text: string): string | undefined => {
    if (!text.includes('${')) return text;
    const result = substituteVariables(text, (name) => values.get(name), {
      keep: (name) => !values.has(name),
      escapes: false,
    });
    return result.ok ? result.text : undefined;
  };
  let failed = false;
  const visit = (node: TreeNode): TreeNode => {
    if (node.kind === 'scalar') {
      if (typeof node.value !== 'string') return node;
      const text = substitute(node.value);
      if (text === undefined) failed = true;
      return text === node.value || text === undefined ? node : { ...node, value: text, text };
    }
    if (node.kind === 'seq') return { ...node, items: node.items.map(visit) };
    const entries = node.entries.map((entry): TreeEntry => {
      const key = substitute(entry.key);
      if (key === undefined) failed = true;
      return { ...entry, key: key ?? entry.key, value: visit(entry.value) };
    });
    return { ...node, entries };
  };
  const tree = visit({ ...document, entries: document.entries.filter((entry) => entry.key !== 'matrix') });
  return failed || tree.kind !== 'map' ? undefined : tree;
}

/**
 * Each combination's pipeline, named after it, read as `read` reads the file's documents; a problem
 * that every combination has is reported once.
 */
export function expandMatrix(
  document: TreeMap,
  pipelineName: string,
  combinations: readonly Combination[],
  read: (tree: TreeMap, diagnostics: Diagnostics) => ManifestDocument | undefined,
  diagnostics: Diagnostics,
): Pipeline[] {
  const pipelines: Pipeline[] = [];
  for (const combination of combinations) {
    const tree = combinationTree(document, combination);
    const pipeline = tree === undefined ? undefined : read(tree, diagnostics);
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
