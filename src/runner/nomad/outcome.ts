import type { NomadAllocation, NomadAllocMetric, NomadEvaluation, NomadTaskEvent } from './api.js';

/**
 * Why a stage's allocation ended without the stage's own report, in Nomad's words: a lost
 * allocation names its node, a driver or setup failure gives Nomad's message, a task that
 * exited gives its exit code. `stderr` is the end of the task's error output, when there is any.
 */
export function allocationFailure(alloc: NomadAllocation, task: string, stderr: string): string {
  const where = `Nomad allocation ${alloc.ID.slice(0, 8)}${alloc.NodeName ? ` on node ${alloc.NodeName}` : ''}`;
  // Nomad says why in DesiredDescription (`alloc is lost since its node is down`); the client's
  // own description is its last word before it was lost.
  if (alloc.ClientStatus === 'lost')
    return `${where} was lost: ${alloc.DesiredDescription || alloc.ClientDescription || 'its node stopped answering'}`;
  const events = alloc.TaskStates[task]?.Events ?? [];
  const failure = [...events].reverse().find(isFailureEvent);
  const tail = lastLines(stderr, 10);
  const output = tail === '' ? '' : `; its last output:\n${tail}`;
  if (failure !== undefined) return `${where}: ${eventText(failure)}${output}`;
  const description = alloc.ClientDescription || `the allocation is ${alloc.ClientStatus}`;
  return `${where}: ${description}${output}`;
}

/**
 * Why an evaluation could not place the job, from its FailedTGAllocs (e.g. `no node in
 * datacenters dc2`, `constraint ${attr.cpu.arch} = arm64 filtered 3 nodes`, `memory exhausted on 2 nodes`).
 */
export function placementFailure(evaluations: readonly NomadEvaluation[]): string | undefined {
  for (const evaluation of [...evaluations].reverse()) {
    const reasons = Object.entries(evaluation.FailedTGAllocs).map(([, metric]) => metricText(metric));
    if (reasons.length > 0) return reasons.join('; ');
  }
  return undefined;
}

function metricText(metric: NomadAllocMetric): string {
  const parts: string[] = [];
  if ((metric.NodesEvaluated ?? 0) === 0 && Object.keys(metric.NodesAvailable).length > 0)
    parts.push(`no ready node in the datacenters ${Object.keys(metric.NodesAvailable).join(', ')}`);
  else if ((metric.NodesEvaluated ?? 0) === 0) parts.push('no ready node in the job’s datacenters');
  for (const [constraint, nodes] of Object.entries(metric.ConstraintFiltered))
    parts.push(`constraint ${constraint} filtered ${plural(nodes, 'node')}`);
  for (const [klass, nodes] of Object.entries(metric.ClassFiltered))
    parts.push(`node class ${klass} filtered ${plural(nodes, 'node')}`);
  for (const [dimension, nodes] of Object.entries(metric.DimensionExhausted))
    parts.push(`${dimension} exhausted on ${plural(nodes, 'node')}`);
  for (const quota of metric.QuotaExhausted) parts.push(`quota exhausted: ${quota}`);
  return parts.length > 0 ? parts.join(', ') : 'no node could take it';
}

function isFailureEvent(event: NomadTaskEvent): boolean {
  return (
    ['Driver Failure', 'Setup Failure', 'Failed Validation', 'Failed Artifact Download'].includes(
      event.Type,
    ) ||
    (event.Type === 'Terminated' && exitCodeOf(event) !== 0) ||
    (event.Type === 'Killed' && event.KillReason !== undefined && event.KillReason !== '')
  );
}

function eventText(event: NomadTaskEvent): string {
  const message =
    event.DriverError || event.SetupError || event.KillReason || event.DisplayMessage || event.Message || '';
  if (event.Type === 'Terminated')
    return `the stage's task exited with code ${exitCodeOf(event)}${message === '' ? '' : ` (${message})`}`;
  return `${event.Type}${message === '' ? '' : `: ${message}`}`;
}

function exitCodeOf(event: NomadTaskEvent): number {
  const detail = Number(event.Details.exit_code);
  return Number.isFinite(detail) && event.Details.exit_code !== undefined ? detail : (event.ExitCode ?? 0);
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split('\n').slice(-count).join('\n');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
