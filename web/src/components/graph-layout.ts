import type { Stage } from '../wire.js';

/** Each stage's column: one more than the deepest stage it depends on (left to right). */
export function layout(
  stages: readonly Pick<Stage, 'name' | 'depends_on'>[],
): Map<string, { column: number; row: number }> {
  const byName = new Map(stages.map((stage) => [stage.name, stage]));
  const depth = new Map<string, number>();
  const visit = (name: string, seen: Set<string>): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    if (seen.has(name)) return 0; // a cycle cannot be built; draw it flat rather than hang
    seen.add(name);
    const deps = (byName.get(name)?.depends_on ?? []).filter((dep) => byName.has(dep));
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((dep) => visit(dep, seen)));
    depth.set(name, value);
    return value;
  };
  const rows = new Map<number, number>();
  const placed = new Map<string, { column: number; row: number }>();
  for (const stage of stages) {
    const column = visit(stage.name, new Set());
    const row = rows.get(column) ?? 0;
    rows.set(column, row + 1);
    placed.set(stage.name, { column, row });
  }
  return placed;
}
