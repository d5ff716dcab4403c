/*
 * Whether a task group fits on the double's one node, as Nomad's feasibility checkers and bin packing
 * decide it (scheduler/feasible): the node must be ready and in one of the job's datacenters (`*`
 * globs), have every task's driver (only `docker` here), satisfy every job, group and task constraint
 * (scheduler/feasible.go `checkConstraint`), and have the CPU, memory and disk left. A failure comes
 * back as the AllocMetric Nomad puts in an evaluation's FailedTGAllocs.
 */
import type { AllocMetric, Constraint, Job, NodeInfo, Resources, TaskGroup } from './model.js';
import { globMatch } from './util.js';

export function emptyMetric(job: Job, node: NodeInfo): AllocMetric {
  const inPool = job.NodePool === 'all' || job.NodePool === node.NodePool;
  return {
    NodesEvaluated: 0,
    NodesFiltered: 0,
    NodesInPool: inPool ? 1 : 0,
    NodePool: job.NodePool,
    NodesAvailable: {},
    ClassFiltered: null,
    ConstraintFiltered: null,
    NodesExhausted: 0,
    ClassExhausted: null,
    DimensionExhausted: null,
    QuotaExhausted: null,
    ResourcesExhausted: null,
    Scores: null,
    ScoreMetaData: null,
    AllocationTime: 0,
    CoalescedFailures: 0,
  };
}

/** What the node's live allocations already use. */
export interface Used {
  cpu: number;
  memoryMB: number;
  diskMB: number;
}

/** The metric of a placement attempt and whether it succeeded. */
export function place(
  job: Job,
  group: TaskGroup,
  node: NodeInfo,
  used: Used,
): { fits: boolean; metric: AllocMetric } {
  const started = process.hrtime.bigint();
  const metric = emptyMetric(job, node);
  const finish = (fits: boolean) => {
    metric.AllocationTime = Number(process.hrtime.bigint() - started);
    return { fits, metric };
  };
  const inDatacenter = job.Datacenters.some((dc) => globMatch(dc, node.Datacenter));
  if (node.status !== 'ready' || metric.NodesInPool === 0 || !inDatacenter) return finish(false);
  metric.NodesAvailable = { [node.Datacenter]: 1 };
  metric.NodesEvaluated = 1;
  const filtered = (reason: string) => {
    metric.NodesFiltered = 1;
    metric.ConstraintFiltered = { [reason]: 1 };
    if (node.NodeClass !== '') metric.ClassFiltered = { [node.NodeClass]: 1 };
    return finish(false);
  };
  if (group.Tasks.some((task) => task.Driver !== 'docker')) return filtered('missing drivers');
  const all = [job.Constraints, group.Constraints, ...group.Tasks.map((task) => task.Constraints)];
  for (const constraint of all.flatMap((list) => list ?? [])) {
    if (!satisfies(constraint, node)) return filtered(constraintText(constraint));
  }
  const need = demand(group);
  const dimension =
    used.cpu + need.cpu > node.cpu
      ? 'cpu'
      : used.memoryMB + need.memoryMB > node.memoryMB
        ? 'memory'
        : used.diskMB + need.diskMB > node.diskMB
          ? 'disk'
          : undefined;
  if (dimension !== undefined) {
    metric.NodesExhausted = 1;
    metric.DimensionExhausted = { [dimension]: 1 };
    if (node.NodeClass !== '') metric.ClassExhausted = { [node.NodeClass]: 1 };
    const exhausted: Record<string, Resources> = {};
    for (const task of group.Tasks) exhausted[task.Name] = { ...task.Resources };
    metric.ResourcesExhausted = exhausted;
    return finish(false);
  }
  return finish(true);
}

/** CPU (MHz), memory and disk (MB) a group asks for. */
export function demand(group: TaskGroup): Used {
  return {
    cpu: group.Tasks.reduce((sum, task) => sum + task.Resources.CPU, 0),
    memoryMB: group.Tasks.reduce((sum, task) => sum + task.Resources.MemoryMB, 0),
    diskMB: group.EphemeralDisk.SizeMB,
  };
}

/** structs.Constraint.String(): the key of ConstraintFiltered. */
export const constraintText = (c: Constraint): string => `${c.LTarget} ${c.Operand} ${c.RTarget}`;

/** scheduler/feasible.go `resolveTarget`: a literal, or a node field, attribute or meta value. */
export function resolveTarget(target: string, node: NodeInfo): { value: string; found: boolean } {
  if (!target.startsWith('${')) return { value: target, found: true };
  const exact: Record<string, string> = {
    '${node.unique.id}': node.ID,
    '${node.datacenter}': node.Datacenter,
    '${node.unique.name}': node.Name,
    '${node.class}': node.NodeClass,
    '${node.pool}': node.NodePool,
  };
  const known = exact[target];
  if (known !== undefined) return { value: known, found: true };
  const match = /^\$\{(attr|meta)\.(.*)\}$/.exec(target);
  if (match === null) return { value: '', found: false };
  const source = match[1] === 'attr' ? node.Attributes : node.Meta;
  const value = source[match[2] ?? ''];
  return value === undefined ? { value: '', found: false } : { value, found: true };
}

export function satisfies(constraint: Constraint, node: NodeInfo): boolean {
  const left = resolveTarget(constraint.LTarget, node);
  const right = resolveTarget(constraint.RTarget, node);
  const both = left.found && right.found;
  switch (constraint.Operand) {
    case 'distinct_hosts':
    case 'distinct_property':
      return true;
    case '=':
    case '==':
    case 'is':
      return both && left.value === right.value;
    case '!=':
    case 'not':
      return left.value !== right.value;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return both && compareOrder(constraint.Operand, left.value, right.value);
    case 'is_set':
      return left.found;
    case 'is_not_set':
      return !left.found;
    case 'regexp':
      return both && safeRegExp(right.value)?.test(left.value) === true;
    case 'set_contains':
    case 'set_contains_all':
      return both && setOf(right.value).every((item) => setOf(left.value).includes(item));
    case 'set_contains_any':
      return both && setOf(right.value).some((item) => setOf(left.value).includes(item));
    case 'version':
    case 'semver':
      return both && versionMatches(left.value, right.value);
    default:
      return false;
  }
}

const setOf = (text: string): string[] => text.split(',').map((item) => item.trim());

function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source);
  } catch {
    return undefined;
  }
}

/** Integers, then floats, then strings, as Go's strconv parses them (strictly). */
function compareOrder(operand: string, left: string, right: string): boolean {
  const numeric = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
  const asNumbers = numeric.test(left) && numeric.test(right);
  const a = asNumbers ? Number(left) : left;
  const b = asNumbers ? Number(right) : right;
  if (operand === '<') return a < b;
  if (operand === '<=') return a <= b;
  if (operand === '>') return a > b;
  return a >= b;
}

/** Version constraints like `>= 1.2, < 2` against a dotted version (enough for attribute checks). */
function versionMatches(version: string, constraints: string): boolean {
  const parse = (text: string) =>
    text
      .replace(/^v/, '')
      .split(/[.+-]/)
      .slice(0, 3)
      .map((part) => Number.parseInt(part, 10) || 0);
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const have = parse(version);
  return constraints.split(',').every((part) => {
    const match = /^\s*(>=|<=|!=|~>|>|<|=)?\s*(\S+)\s*$/.exec(part);
    if (match === null) return false;
    const diff = compare(have, parse(match[2] ?? ''));
    switch (match[1] ?? '=') {
      case '>=':
        return diff >= 0;
      case '<=':
        return diff <= 0;
      case '>':
        return diff > 0;
      case '<':
        return diff < 0;
      case '!=':
        return diff !== 0;
      case '~>':
        return diff >= 0;
      default:
        return diff === 0;
    }
  });
}
