import type { Diagnostics } from '../diagnostics.js';
import { describeNode } from '../decode/read.js';
import type { TreeMap, TreeNode } from '../yaml/tree.js';

/** GitHub Actions' limit on a matrix's combinations (Woodpecker allows 64). */
export const MAX_COMBINATIONS = 256;

/** One combination: each axis's value, in the order the axes are written. */
export type Combination = readonly (readonly [axis: string, value: string])[];

/** What an axis may be called: what `${…}` reads as a name. */
const AXIS_NAME = /^[\p{L}\p{N}_-]+$/u;

const MATRIX_EXAMPLE = 'matrix: {GO_VERSION: ["1.21", "1.22"], DATABASE: [mysql, postgres]}';

/**
 * A pipeline's `matrix:` (svc addition): axes of values, whose product is the combinations, and
 * `include:`, combinations written out (added after the product's). Undefined when anything is
 * wrong (each problem reported where it is): a pipeline never runs half a matrix.
 */
export function readMatrix(
  node: TreeNode,
  field: string,
  diagnostics: Diagnostics,
): Combination[] | undefined {
  if (node.kind !== 'map') {
    diagnostics.error(
      node.position,
      field,
      `expected a map of axes, e.g. ${MATRIX_EXAMPLE}, found ${describeNode(node)}`,
    );
    return undefined;
  }
  let ok = true;
  const axes: { name: string; values: string[] }[] = [];
  let included: Combination[] = [];
  for (const entry of node.entries) {
    const at = `${field}.${entry.key}`;
    if (entry.key === 'include') {
      const read = readInclude(entry.value, at, diagnostics);
      if (read === undefined) ok = false;
      else included = read;
      continue;
    }
    if (!axisName(entry.key, entry.keyPosition, at, diagnostics)) ok = false;
    const values = readValues(entry.value, at, diagnostics);
    if (values === undefined) ok = false;
    else axes.push({ name: entry.key, values });
  }
  if (!ok) return undefined;
  if (axes.length === 0 && included.length === 0) {
    diagnostics.error(node.position, field, `has no axes; expected ${MATRIX_EXAMPLE}`);
    return undefined;
  }
  // Counted before it is built: a 10×10×10×10 matrix is refused without making 10,000 of them.
  const count =
    (axes.length === 0 ? 0 : axes.reduce((n, axis) => n * axis.values.length, 1)) + included.length;
  if (count > MAX_COMBINATIONS) {
    diagnostics.error(
      node.position,
      field,
      `makes ${count} combinations; expected at most ${MAX_COMBINATIONS} (split the pipeline, or list the combinations you need under include)`,
    );
    return undefined;
  }
  return unique([...(axes.length === 0 ? [] : cartesian(axes)), ...included]);
}

function axisName(name: string, at: TreeNode['position'], field: string, diagnostics: Diagnostics): boolean {
  if (AXIS_NAME.test(name)) return true;
  diagnostics.error(
    at,
    field,
    `"${name}" cannot be an axis: expected a name of letters, digits, _ and -, as \${NAME} reads it`,
  );
  return false;
}

function scalarText(node: TreeNode): string | undefined {
  if (node.kind !== 'scalar' || node.value === null) return undefined;
  return node.text;
}

function readValues(node: TreeNode, field: string, diagnostics: Diagnostics): string[] | undefined {
  const items = node.kind === 'seq' ? node.items : [];
  const values = items.map(scalarText);
  if (node.kind === 'seq' && items.length > 0 && values.every((value) => value !== undefined)) return values;
  const bad = items.find((item) => scalarText(item) === undefined);
  diagnostics.error(
    bad?.position ?? node.position,
    field,
    `expected a non-empty list of values, e.g. ["1.21", "1.22"], found ${describeNode(bad ?? node)}`,
  );
  return undefined;
}

function readInclude(node: TreeNode, field: string, diagnostics: Diagnostics): Combination[] | undefined {
  const expected =
    'a list of combinations, each a map of axes to values, e.g. include: [{GO_VERSION: "1.22", DATABASE: sqlite}]';
  if (node.kind !== 'seq' || node.items.length === 0) {
    diagnostics.error(node.position, field, `expected ${expected}, found ${describeNode(node)}`);
    return undefined;
  }
  const combinations: Combination[] = [];
  let ok = true;
  node.items.forEach((item, index) => {
    const at = `${field}[${index}]`;
    if (item.kind !== 'map' || item.entries.length === 0) {
      diagnostics.error(item.position, at, `expected ${expected}, found ${describeNode(item)}`);
      ok = false;
      return;
    }
    const combination = readCombination(item, at, diagnostics);
    if (combination === undefined) ok = false;
    else combinations.push(combination);
  });
  return ok ? combinations : undefined;
}

function readCombination(map: TreeMap, field: string, diagnostics: Diagnostics): Combination | undefined {
  const pairs: [string, string][] = [];
  for (const entry of map.entries) {
    const at = `${field}.${entry.key}`;
    const value = scalarText(entry.value);
    if (!axisName(entry.key, entry.keyPosition, at, diagnostics)) return undefined;
    if (value === undefined) {
      diagnostics.error(entry.value.position, at, `expected a value, found ${describeNode(entry.value)}`);
      return undefined;
    }
    pairs.push([entry.key, value]);
  }
  return pairs;
}

function cartesian(axes: readonly { name: string; values: readonly string[] }[]): Combination[] {
  let combinations: Combination[] = [[]];
  for (const { name, values } of axes) {
    combinations = combinations.flatMap((combination) =>
      values.map((value): Combination => [...combination, [name, value]]),
    );
  }
  return combinations;
}

function unique(combinations: readonly Combination[]): Combination[] {
  const seen = new Set<string>();
  return combinations.filter((combination) => {
    const key = JSON.stringify(combination);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
