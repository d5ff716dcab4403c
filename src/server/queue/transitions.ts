import type { Stage } from '../../core/stage.js';
import { isDone, isFailed, type Status } from '../../core/status.js';

/** What deciding on a waiting stage reads of the stages (stored ones, or ones about to be created). */
export type DependencyView = Pick<
  Stage,
  'name' | 'status' | 'dependsOn' | 'errIgnore' | 'onSuccess' | 'onFailure' | 'deployment'
>;

/** A stage whose status must change because of the stages it depends on. */
export interface DependentChange<T extends DependencyView = Stage> {
  stage: T;
  status: 'pending' | 'skipped' | 'blocked';
}

/**
 * The stages waiting on dependencies that can now move, by Drone's rules: once every stage a stage
 * depends on is done, it becomes `pending` (queued) when it may run given how they went, otherwise
 * `skipped`. How they went: "failed" when any stage it depends on — directly or through the
 * stages those depend on — failed without `errIgnore`; a failed build runs only the stages with
 * `on_failure`, a passing one only those with `on_success` (the pipeline's `trigger: status`).
 * Names that match no stage count as done. A stage that would run but deploys to an environment
 * whose approvals it does not have yet becomes `blocked` instead: approvals are asked for when the
 * deployment is ready. Apply the changes, then ask again: a skipped stage may complete the
 * dependencies of another.
 */
export function dependentChanges<T extends DependencyView>(stages: readonly T[]): DependentChange<T>[] {
  const byName = new Map(stages.map((stage) => [stage.name, stage]));
  const changes: DependentChange<T>[] = [];
  for (const stage of stages) {
    if (stage.status !== 'waiting_on_dependencies') continue;
    const deps = stage.dependsOn.flatMap((name) => byName.get(name) ?? []);
    if (!deps.every((dep) => isDone(dep.status))) continue;
    const failed = upstreamFailed(stage, byName);
    const runs = failed ? stage.onFailure : stage.onSuccess;
    const waits = stage.deployment !== undefined && !stage.deployment.approved;
    changes.push({ stage, status: runs ? (waits ? 'blocked' : 'pending') : 'skipped' });
  }
  return changes;
}

function upstreamFailed(stage: DependencyView, byName: ReadonlyMap<string, DependencyView>): boolean {
  const seen = new Set<string>();
  const stack = [...stage.dependsOn];
  while (stack.length > 0) {
    const name = stack.pop() ?? '';
    if (seen.has(name)) continue;
    seen.add(name);
    const dep = byName.get(name);
    if (dep === undefined) continue;
    if (isFailed(dep.status) && !dep.errIgnore) return true;
    stack.push(...dep.dependsOn);
  }
  return false;
}

/**
 * The build's final status once every stage is done, or undefined while some are not. Stages with
 * `errIgnore` do not count. Then: `killed` when a stage was killed (cancelled), else `error` when
 * one errored, else `failure` when one failed (or was declined), else `success` (skipped stages
 * included).
 */
export function finalBuildStatus(stages: readonly Stage[]): Status | undefined {
  if (!stages.every((stage) => isDone(stage.status))) return undefined;
  const counted = stages.filter((stage) => !stage.errIgnore).map((stage) => stage.status);
  if (counted.includes('killed')) return 'killed';
  if (counted.includes('error')) return 'error';
  if (counted.includes('failure') || counted.includes('declined')) return 'failure';
  return 'success';
}

/** True once a stage of the build runs or ran: the build is then `running` until it is done. */
export function buildHasStarted(stages: readonly Stage[]): boolean {
  return stages.some((stage) => stage.status === 'running' || isDone(stage.status));
}
