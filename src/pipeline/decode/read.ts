import type { Diagnostics } from '../diagnostics.js';
import type { TreeMap, TreeNode } from '../yaml/tree.js';

/**
 * Readers for the values of a pipeline file. Each one either returns the value or reports, at the
 * value's line and column, what it found and what the field expects, and returns undefined.
 * (The file is decoded by hand rather than with a zod schema because every message must carry a YAML
 * position and the text as written, which a schema over plain JavaScript values no longer has.)
 */

/** How a value reads in a message: "a list", "the number 3", … */
export function describeNode(node: TreeNode): string {
  switch (node.kind) {
    case 'map':
      return 'a map';
    case 'seq':
      return 'a list';
    case 'scalar':
      if (node.value === null) return 'an empty value';
      if (typeof node.value === 'boolean') return `the boolean ${node.text}`;
      if (typeof node.value === 'number') return `the number ${node.text}`;
      return `the string "${node.text}"`;
  }
}

/** A null scalar (`key:` or `key: ~`): treated as if the key were absent, as Drone does. */
export function isEmpty(node: TreeNode | undefined): node is undefined {
  return node === undefined || (node.kind === 'scalar' && node.value === null);
}

/** A scalar as the text written (numbers and booleans included, as Drone reads string fields). */
export function readString(
  node: TreeNode,
  field: string,
  expected: string,
  diagnostics: Diagnostics,
): string | undefined {
  if (node.kind === 'scalar' && node.value !== null) return node.text;
  diagnostics.error(node.position, field, `expected ${expected}, found ${describeNode(node)}`);
  return undefined;
}

/** A boolean (YAML 1.1 spellings such as yes/no included); a quoted "true" is a string, as in Drone. */
export function readBool(node: TreeNode, field: string, diagnostics: Diagnostics): boolean | undefined {
  if (node.kind === 'scalar' && typeof node.value === 'boolean') return node.value;
  diagnostics.error(node.position, field, `expected true or false, found ${describeNode(node)}`);
  return undefined;
}

/** A whole number of at least `options.min`. */
export function readInt(
  node: TreeNode,
  field: string,
  options: { min: number; expected: string },
  diagnostics: Diagnostics,
): number | undefined {
  if (
    node.kind === 'scalar' &&
    typeof node.value === 'number' &&
    Number.isSafeInteger(node.value) &&
    node.value >= options.min
  ) {
    return node.value;
  }
  diagnostics.error(node.position, field, `expected ${options.expected}, found ${describeNode(node)}`);
  return undefined;
}

/**
 * A list of strings; a single string counts as a list of one. A map inside a list of commands is
 * nearly always an unquoted `: ` in a command, so the message says how to quote it.
 */
export function readStrings(
  node: TreeNode,
  field: string,
  expected: string,
  diagnostics: Diagnostics,
): string[] {
  if (node.kind === 'scalar') {
    const single = readString(node, field, `${expected} (a list of strings)`, diagnostics);
    return single === undefined ? [] : [single];
  }
  if (node.kind === 'map') {
    diagnostics.error(node.position, field, `expected ${expected} (a list of strings), found a map`);
    return [];
  }
  const values: string[] = [];
  node.items.forEach((item, index) => {
    const itemField = `${field}[${index}]`;
    if (item.kind === 'map') {
      diagnostics.error(
        item.position,
        itemField,
        `expected a string, found a map; a value containing ": " must be quoted, e.g. - 'echo "a: b"'`,
      );
      return;
    }
    const value = readString(item, itemField, 'a string', diagnostics);
    if (value !== undefined) values.push(value);
  });
  return values;
}

/** A map of strings (labels, node selectors): scalar values taken as written. */
export function readStringMap(
  node: TreeNode,
  field: string,
  expected: string,
  diagnostics: Diagnostics,
): Record<string, string> {
  const map = readMap(node, field, expected, diagnostics);
  const result: Record<string, string> = {};
  for (const entry of map?.entries ?? []) {
    if (isEmpty(entry.value)) {
      result[entry.key] = '';
      continue;
    }
    const value = readString(entry.value, `${field}.${entry.key}`, 'a string', diagnostics);
    if (value !== undefined) result[entry.key] = value;
  }
  return result;
}

/** The node as a map, or an error saying what the field expects instead. */
export function readMap(
  node: TreeNode,
  field: string,
  expected: string,
  diagnostics: Diagnostics,
): TreeMap | undefined {
  if (node.kind === 'map') return node;
  diagnostics.error(node.position, field, `expected ${expected}, found ${describeNode(node)}`);
  return undefined;
}

/** A field path below `parent`. */
export function child(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent === '' ? key : `${parent}.${key}`;
}
