import { suggestName } from '../suggest.js';
import { child } from '../decode/read.js';
import type { Diagnostics, Position } from '../diagnostics.js';

/** A step or pipeline as `depends_on` sees it. */
export interface GraphNode {
  readonly name: string;
  readonly dependsOn: readonly string[];
  /** Field path of the node, e.g. `steps[2]`. */
  readonly field: string;
  /** Where the i-th `depends_on` entry is. */
  position(index: number): Position;
}

/**
 * Reports `depends_on` entries that name nothing (`others` are names that exist without being nodes,
 * such as the clone step) and dependency cycles, each cycle once, at the entry that closes it.
 */
export function checkDependencies(
  nodes: readonly GraphNode[],
  others: readonly string[],
  what: 'step' | 'pipeline',
  diagnostics: Diagnostics,
  /** Explanations for names that are known to be missing (the clone step of a pipeline that disables it). */
  hints?: ReadonlyMap<string, string>,
): void {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const names = [...others, ...byName.keys()];
  for (const node of nodes) {
    node.dependsOn.forEach((dependency, index) => {
      const field = child(node.field, `depends_on[${index}]`);
      if (dependency === node.name) {
        diagnostics.error(
          node.position(index),
          field,
          `${what} "${node.name}" depends on itself; expected the names of other ${what}s`,
        );
      } else if (!names.includes(dependency)) {
        const suggestion = suggestName(dependency, names);
        const hint =
          hints?.get(dependency) ??
          (suggestion === undefined
            ? `expected one of: ${names.join(', ') || '(none)'}`
            : `did you mean "${suggestion}"?`);
        diagnostics.error(node.position(index), field, `unknown ${what} "${dependency}"; ${hint}`);
      }
    });
  }
  reportCycles(nodes, byName, what, diagnostics);
}

function reportCycles(
  nodes: readonly GraphNode[],
  byName: ReadonlyMap<string, GraphNode>,
  what: string,
  diagnostics: Diagnostics,
): void {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: GraphNode[] = [];
  const visit = (node: GraphNode): void => {
    state.set(node.name, 'visiting');
    path.push(node);
    node.dependsOn.forEach((dependency, index) => {
      const next = byName.get(dependency);
      if (next === undefined || next === node) return;
      const seen = state.get(next.name);
      if (seen === 'visiting') {
        const cycle = [...path.slice(path.indexOf(next)).map((member) => member.name), next.name];
        const [first, ...rest] = cycle.map((name) => `"${name}"`);
        diagnostics.error(
          node.position(index),
          child(node.field, `depends_on[${index}]`),
          `dependency cycle: ${first} depends on ${rest.join(', which depends on ')}; expected depends_on without loops (none of these ${what}s could ever start)`,
        );
      } else if (seen === undefined) {
        visit(next);
      }
    });
    path.pop();
    state.set(node.name, 'done');
  };
  for (const node of nodes) if (!state.has(node.name)) visit(node);
}
