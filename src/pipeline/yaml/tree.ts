import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node, type Pair } from 'yaml';
import type { Diagnostics, Position } from '../diagnostics.js';

/**
 * The YAML of one document as a small tree that keeps positions: aliases are resolved, merge keys
 * (`<<: *x`) applied and duplicate keys reported. Scalars keep both the YAML 1.1 value (what Drone's
 * Go parser sees for settings) and the text as written (what it sees for string fields: `1.10` stays
 * `1.10` in an environment variable).
 */
export type TreeNode = TreeMap | TreeSeq | TreeScalar;

/** A scalar: its YAML 1.1 value and its text. */
export interface TreeScalar {
  readonly kind: 'scalar';
  readonly position: Position;
  readonly value: string | number | boolean | null;
  /** The value as a string: the source text of plain numbers, booleans and dates; '' for null. */
  readonly text: string;
}

/** A sequence (list). */
export interface TreeSeq {
  readonly kind: 'seq';
  readonly position: Position;
  readonly items: readonly TreeNode[];
}

/** One key of a map, with where the key is. */
export interface TreeEntry {
  readonly key: string;
  readonly keyPosition: Position;
  readonly value: TreeNode;
}

/** A map, its keys in order, merge keys applied. */
export interface TreeMap {
  readonly kind: 'map';
  readonly position: Position;
  readonly entries: readonly TreeEntry[];
}

/** Nodes a document may expand to through aliases before it is refused (a defence against alias bombs). */
export const MAX_EXPANDED_NODES = 100_000;

/** Converts a parsed document's contents; undefined when it is empty (comments only) or cannot be converted. */
export function buildTree(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  diagnostics: Diagnostics,
): TreeNode | undefined {
  const contents = doc.contents;
  if (contents === null || isEmptyScalar(contents)) return undefined;
  const builder = new TreeBuilder(doc, lineCounter, diagnostics);
  const tree = builder.convert(contents, '');
  if (builder.expanded > MAX_EXPANDED_NODES) {
    diagnostics.error(
      tree.position,
      '',
      `the document expands to more than ${MAX_EXPANDED_NODES} values through YAML aliases; expected a pipeline file of ordinary size (are aliases nested inside each other?)`,
    );
    return undefined;
  }
  return tree;
}

class TreeBuilder {
  /** Values produced, counting every use of an alias: what a consumer walking the tree would visit. */
  expanded = 0;
  readonly #cache = new Map<Node, { tree: TreeNode; size: number }>();
  readonly #inProgress = new Set<Node>();
  readonly #doc: Document.Parsed;
  readonly #lines: LineCounter;
  readonly #diagnostics: Diagnostics;

  constructor(doc: Document.Parsed, lines: LineCounter, diagnostics: Diagnostics) {
    this.#doc = doc;
    this.#lines = lines;
    this.#diagnostics = diagnostics;
  }

  convert(node: Node, field: string): TreeNode {
    return this.#convertCounted(node, field).tree;
  }

  position(node: Node | null | undefined, fallback?: Position): Position {
    const offset = node?.range?.[0];
    if (offset === undefined) return fallback ?? { line: 1, column: 1 };
    const { line, col } = this.#lines.linePos(offset);
    return { line, column: col };
  }

  #convertCounted(node: Node, field: string): { tree: TreeNode; size: number } {
    const target = isAlias(node) ? this.#resolveAlias(node, field) : node;
    if (target === undefined) return this.#counted(this.#nullScalar(this.position(node)), 1);
    const cached = this.#cache.get(target);
    if (cached !== undefined) return this.#counted(cached.tree, cached.size);
    if (this.#inProgress.has(target)) {
      this.#diagnostics.error(
        this.position(node),
        field,
        'this alias refers to a node that contains it; expected an alias of an earlier, complete anchor',
      );
      return this.#counted(this.#nullScalar(this.position(node)), 1);
    }
    this.#inProgress.add(target);
    const before = this.expanded;
    const tree = this.#convertNode(target, field);
    const size = this.expanded - before + 1;
    this.expanded += 1;
    this.#inProgress.delete(target);
    this.#cache.set(target, { tree, size });
    return { tree, size };
  }

  #counted(tree: TreeNode, size: number): { tree: TreeNode; size: number } {
    this.expanded += size;
    return { tree, size };
  }

  #resolveAlias(node: Node, field: string): Node | undefined {
    if (!isAlias(node)) return node;
    const target = node.resolve(this.#doc);
    if (target === undefined) {
      this.#diagnostics.error(
        this.position(node),
        field,
        `unknown alias *${node.source}; expected an anchor &${node.source} defined earlier in the same document`,
      );
    }
    return target;
  }

  #convertNode(node: Node, field: string): TreeNode {
    if (isMap(node)) return this.#convertMap(node.items, this.position(node), field);
    if (isSeq(node)) {
      const items = node.items.map((item, index) => this.#convertItem(item, `${field}[${index}]`));
      return { kind: 'seq', position: this.position(node), items };
    }
    if (isScalar(node)) return scalar(node.value, node.source, this.position(node));
    return this.#nullScalar(this.position(node));
  }

  #convertItem(item: unknown, field: string): TreeNode {
    if (isAlias(item) || isMap(item) || isSeq(item) || isScalar(item))
      return this.#convertCounted(item, field).tree;
    return this.#nullScalar({ line: 1, column: 1 });
  }

  #convertMap(pairs: readonly Pair[], position: Position, field: string): TreeMap {
    const explicit = new Map<string, TreeEntry>();
    const entries: (TreeEntry | 'merge')[] = [];
    const sources: TreeMap[] = [];
    for (const pair of pairs) {
      const keyNode = pair.key as Node | null;
      const keyPosition = this.position(keyNode, position);
      if (isMergeKey(keyNode)) {
        sources.push(...this.#mergeSources(pair.value as Node | null, keyPosition, field));
        if (!entries.includes('merge')) entries.push('merge');
        continue;
      }
      const key = this.#keyText(keyNode, keyPosition, field);
      if (key === undefined) continue;
      const path = field === '' ? key : `${field}.${key}`;
      const previous = explicit.get(key);
      if (previous !== undefined) {
        this.#diagnostics.error(
          keyPosition,
          path,
          `duplicate key: "${key}" is defined at line ${previous.keyPosition.line}, column ${previous.keyPosition.column} and again at line ${keyPosition.line}, column ${keyPosition.column}; expected each key once per map`,
        );
        continue;
      }
      const valueNode = pair.value as Node | null;
      const value =
        valueNode === null || isEmptyScalar(valueNode)
          ? this.#counted(this.#nullScalar(keyPosition), 1).tree
          : this.convert(valueNode, path);
      const entry = { key, keyPosition, value };
      explicit.set(key, entry);
      entries.push(entry);
    }
    return { kind: 'map', position, entries: withMerged(entries, explicit, sources) };
  }

  #mergeSources(value: Node | null, at: Position, field: string): TreeMap[] {
    const expected =
      'expected an alias of a map (`<<: *defaults`) or a list of such aliases (`<<: [*a, *b]`)';
    if (value === null) {
      this.#diagnostics.error(at, field, `the merge key << has no value; ${expected}`);
      return [];
    }
    const candidates = isSeq(value) ? value.items : [value];
    const maps: TreeMap[] = [];
    for (const candidate of candidates) {
      const unknownAlias = isAlias(candidate) && candidate.resolve(this.#doc) === undefined;
      const tree = this.#convertItem(candidate, field);
      if (unknownAlias) continue; // already reported as an unknown alias
      if (tree.kind === 'map') maps.push(tree);
      else
        this.#diagnostics.error(
          at,
          field,
          `the merge key << takes maps, found ${tree.kind === 'seq' ? 'a list' : 'a single value'}; ${expected}`,
        );
    }
    return maps;
  }

  #keyText(key: Node | null, at: Position, field: string): string | undefined {
    if (key === null) return '';
    const resolved = this.#resolveAlias(key, field);
    if (resolved !== undefined && isScalar(resolved)) return scalar(resolved.value, resolved.source, at).text;
    this.#diagnostics.error(
      at,
      field,
      'a map key is a list or a map; expected a plain name such as `image` (quote keys that contain special characters)',
    );
    return undefined;
  }

  #nullScalar(position: Position): TreeScalar {
    return { kind: 'scalar', position, value: null, text: '' };
  }
}

function isMergeKey(key: Node | null): boolean {
  if (key === null || !isScalar(key)) return false;
  return typeof key.value === 'symbol' || (key.source === '<<' && key.type === 'PLAIN');
}

function isEmptyScalar(node: Node): boolean {
  return isScalar(node) && node.value === null && (node.source === '' || node.source === undefined);
}

/** Explicit keys win over merged ones; among merge sources the first one listed wins (YAML merge rules). */
function withMerged(
  entries: readonly (TreeEntry | 'merge')[],
  explicit: ReadonlyMap<string, TreeEntry>,
  sources: readonly TreeMap[],
): TreeEntry[] {
  const merged: TreeEntry[] = [];
  const taken = new Set(explicit.keys());
  for (const source of sources) {
    for (const entry of source.entries) {
      if (taken.has(entry.key)) continue;
      taken.add(entry.key);
      merged.push(entry);
    }
  }
  return entries.flatMap((entry) => (entry === 'merge' ? merged : [entry]));
}

function scalar(value: unknown, source: string | undefined, position: Position): TreeScalar {
  if (value === null || value === undefined) return { kind: 'scalar', position, value: null, text: '' };
  if (typeof value === 'string') return { kind: 'scalar', position, value, text: value };
  if (typeof value === 'number' || typeof value === 'boolean') {
    return { kind: 'scalar', position, value, text: source ?? String(value) };
  }
  // Dates, binary and other typed scalars: Drone's parser hands them on as the text written.
  const text = source ?? (value instanceof Date ? value.toISOString() : '');
  return { kind: 'scalar', position, value: text, text };
}
