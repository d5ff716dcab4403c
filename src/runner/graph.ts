import type { ExecStep } from '../core/engine.js';

/**
 * Checks that the steps form a DAG the executor can walk: unique names, dependencies that exist,
 * no cycle. Returns what is wrong, or undefined. The compiler reports these with line numbers;
 * the runner checks again because a spec may come from elsewhere and a cycle would hang it.
 */
export function graphProblem(steps: readonly ExecStep[]): string | undefined {
  const byName = new Map<string, ExecStep>();
  for (const step of steps) {
    if (byName.has(step.name)) return `two steps are named "${step.name}"`;
    byName.set(step.name, step);
  }
  for (const step of steps) {
    for (const dep of step.dependsOn) {
      if (!byName.has(dep)) return `step "${step.name}" depends on "${dep}", which does not exist`;
      if (dep === step.name) return `step "${step.name}" depends on itself`;
    }
  }
  // Depth-first search; a step met again while still on the path closes a cycle.
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (name: string): string[] | undefined => {
    if (done.has(name)) return undefined;
    const at = path.indexOf(name);
    if (at >= 0) return [...path.slice(at), name];
    path.push(name);
    for (const dep of byName.get(name)?.dependsOn ?? []) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    done.add(name);
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.name);
    if (cycle) return `the steps depend on each other in a cycle: ${cycle.reverse().join(' → ')}`;
  }
  return undefined;
}
