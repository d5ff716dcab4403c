/*
 * The admission checks Nomad's server runs on a registered job (nomad/job_endpoint_hooks.go and
 * nomad/structs `Job.Validate`, `TaskGroup.Validate`, `Task.Validate`, `RestartPolicy.Validate`,
 * `ReschedulePolicy.Validate`, `Constraint.Validate`) with their messages, nested as Nomad's
 * hashicorp/go-multierror lists nest them; the agent answers any of them with 500 and the whole text.
 */
import type { Constraint, Job, ReschedulePolicy, RestartPolicy, Task, TaskGroup } from './model.js';
import { formatGoDuration, multierror, SECOND_NS } from './util.js';

/**
 * The admission validators' errors for a canonical job, as one multierror text (empty when valid): the
 * namespace and node pool checks, then `Job.Validate` (with nested group and task lists), then the priority range.
 */
export function validateJob(job: Job, namespaceExists: boolean, nodePoolExists: boolean): string {
  const errors: string[] = [];
  if (!namespaceExists) errors.push(`job ${q(job.ID)} is in nonexistent namespace ${q(job.Namespace)}`);
  if (!nodePoolExists) errors.push(`job ${q(job.ID)} is in nonexistent node pool ${q(job.NodePool)}`);
  if (job.ID === '') errors.push('Missing job ID');
  else if (job.ID.includes(' ')) errors.push('Job ID contains a space');
  else if (job.ID.includes('\0')) errors.push('Job ID contains a null character');
  if (job.Name === '') errors.push('Missing job name');
  else if (job.Name.includes('\0')) errors.push('Job Name contains a null character');
  if (job.Type === '') errors.push('Missing job type');
  else if (!['core', 'service', 'batch', 'system', 'sysbatch'].includes(job.Type)) {
    errors.push(`Invalid job type: ${q(job.Type)}`);
  }
  if (job.Datacenters.some((dc) => dc === '')) errors.push('Job datacenter must be non-empty string');
  if (job.TaskGroups.length === 0) errors.push('Missing job task groups');
  constraintErrors(job.Constraints, errors);
  const seen = new Map<string, number>();
  job.TaskGroups.forEach((group, index) => {
    const first = seen.get(group.Name);
    if (group.Name === '') errors.push(`Job task group ${index + 1} missing name`);
    else if (first !== undefined) {
      errors.push(`Job task group ${index + 1} redefines '${group.Name}' from group ${first + 1}`);
    } else seen.set(group.Name, index);
  });
  for (const group of job.TaskGroups) {
    const groupErrors = validateGroup(group, job.Type);
    if (groupErrors.length > 0) {
      errors.push(`Task group ${group.Name} validation failed: ${multierror(groupErrors)}`);
    }
  }
  if (job.Type === 'core') errors.push('job type cannot be core');
  if (job.Priority < 1 || job.Priority > 100) errors.push('job priority must be between [1, 100]');
  return errors.length === 0 ? '' : multierror(errors);
}

function validateGroup(group: TaskGroup, type: string): string[] {
  const errors: string[] = [];
  if (group.Name === '') errors.push('Missing task group name');
  if (group.Count < 0) errors.push("Task group count can't be negative");
  if (group.Tasks.length === 0) errors.push('Missing tasks for task group');
  constraintErrors(group.Constraints, errors);
  errors.push(...restartErrors(group.RestartPolicy));
  if (group.ReschedulePolicy !== null) errors.push(...rescheduleErrors(group.ReschedulePolicy));
  if (group.EphemeralDisk.SizeMB < 10)
    errors.push(`minimum DiskMB value is 10; got ${group.EphemeralDisk.SizeMB}`);
  const seen = new Map<string, number>();
  group.Tasks.forEach((task, index) => {
    const first = seen.get(task.Name);
    if (task.Name === '') errors.push(`Task ${index + 1} missing name`);
    else if (first !== undefined)
      errors.push(`Task ${index + 1} redefines '${task.Name}' from task ${first + 1}`);
    else seen.set(task.Name, index);
  });
  if (group.Tasks.filter((task) => task.Leader).length > 1)
    errors.push('Only one task may be marked as leader');
  for (const task of group.Tasks) {
    const taskErrors = validateTask(task, group);
    if (taskErrors.length > 0) errors.push(`Task ${task.Name} validation failed: ${multierror(taskErrors)}`);
  }
  if (type === 'system' && group.Count > 1) {
    errors.push(
      `Job task group ${group.Name} has count ${group.Count}. Count cannot exceed 1 with system scheduler`,
    );
  }
  return errors;
}

function validateTask(task: Task, group: TaskGroup): string[] {
  const errors: string[] = [];
  if (task.Name === '') errors.push('Missing task name');
  if (task.Name === 'alloc') errors.push('Task cannot be named "alloc"');
  if (/[/\\]/.test(task.Name)) errors.push('Task name cannot include slashes');
  if (task.Driver === '') errors.push('Missing task driver');
  if (task.KillTimeout < 0) errors.push('KillTimeout must be a positive value');
  const resources: string[] = [];
  const { CPU, Cores, MemoryMB } = task.Resources;
  if (Cores > 0 && CPU > 0) resources.push("Task can only ask for 'cpu' or 'cores' resource, not both.");
  if (Cores < 0) resources.push(`cores value (${Cores}) cannot be negative`);
  const minimum: string[] = [];
  if (CPU < 1 && Cores === 0) minimum.push(`minimum CPU value is 1; got ${CPU}`);
  if (MemoryMB < 10) minimum.push(`minimum MemoryMB value is 10; got ${MemoryMB}`);
  if (minimum.length > 0) resources.push(multierror(minimum));
  if (resources.length > 0) errors.push(multierror(resources));
  const log: string[] = [];
  const { MaxFiles, MaxFileSizeMB } = task.LogConfig;
  if (MaxFiles < 1) log.push(`minimum number of files is 1; got ${MaxFiles}`);
  if (MaxFileSizeMB < 1) log.push(`minimum file size is 1MB; got ${MaxFileSizeMB}`);
  if (group.EphemeralDisk.SizeMB <= MaxFiles * MaxFileSizeMB) {
    const usage = MaxFiles * MaxFileSizeMB;
    log.push(
      `log storage (${usage} MB) must be less than requested disk capacity (${group.EphemeralDisk.SizeMB} MB)`,
    );
  }
  if (log.length > 0) errors.push(multierror(log));
  constraintErrors(task.Constraints, errors);
  return errors;
}

function restartErrors(policy: RestartPolicy): string[] {
  const errors: string[] = [];
  if (policy.Mode !== 'delay' && policy.Mode !== 'fail')
    errors.push(`Unsupported restart mode: ${q(policy.Mode)}`);
  if (policy.Attempts === 0 && policy.Mode !== 'fail') {
    errors.push(`Restart policy ${q(policy.Mode)} with ${policy.Attempts} attempts is ambiguous`);
  }
  if (policy.Interval < 5 * SECOND_NS) {
    errors.push(`Interval can not be less than 5s (got ${formatGoDuration(policy.Interval)})`);
  }
  if (policy.Attempts * policy.Delay > policy.Interval) {
    const interval = formatGoDuration(policy.Interval);
    errors.push(
      `Nomad can't restart the TaskGroup ${policy.Attempts} times in an interval of ${interval} with a delay of ${formatGoDuration(policy.Delay)}`,
    );
  }
  return errors;
}

function rescheduleErrors(policy: ReschedulePolicy): string[] {
  if (!(policy.Attempts > 0 || policy.Unlimited)) return [];
  const errors: string[] = [];
  const d = formatGoDuration;
  if (policy.Attempts > 0 && policy.Interval <= 0)
    errors.push('Interval must be a non zero value if Attempts > 0');
  if (policy.Attempts > 0 && policy.Unlimited) {
    errors.push(
      `Reschedule Policy with Attempts = ${policy.Attempts}, Interval = ${d(policy.Interval)}, and Unlimited = true is ambiguous`,
      'If Attempts >0, Unlimited cannot also be set to true',
    );
  }
  if (policy.Delay < 5 * SECOND_NS) errors.push(`Delay cannot be less than 5s (got ${d(policy.Delay)})`);
  if (!['constant', 'exponential', 'fibonacci'].includes(policy.DelayFunction)) {
    errors.push(
      `Invalid delay function ${q(policy.DelayFunction)}, must be one of ["constant" "exponential" "fibonacci"]`,
    );
  }
  if (policy.DelayFunction !== 'constant') {
    if (policy.MaxDelay < 5 * SECOND_NS)
      errors.push(`Max Delay cannot be less than 5s (got ${d(policy.Delay)})`);
    if (policy.MaxDelay < policy.Delay) {
      errors.push(`Max Delay cannot be less than Delay ${d(policy.Delay)} (got ${d(policy.MaxDelay)})`);
    }
  }
  if (!policy.Unlimited && policy.Interval < 15 * SECOND_NS) {
    errors.push(`Interval cannot be less than 15s (got ${d(policy.Interval)})`);
  }
  return errors;
}

const EQUALITY = ['=', '==', 'is', '!=', 'not', '<', '<=', '>', '>='];
const KNOWN_OPERANDS = [...EQUALITY, 'version', 'semver', 'regexp', 'distinct_hosts', 'distinct_property'];
KNOWN_OPERANDS.push('set_contains', 'set_contains_all', 'set_contains_any', 'is_set', 'is_not_set');
const EXACT_TARGETS = ['${node.unique.id}', '${node.datacenter}', '${node.unique.name}', '${node.class}'];
EXACT_TARGETS.push('${node.pool}');

function constraintErrors(list: Constraint[] | null, errors: string[]): void {
  (list ?? []).forEach((constraint, index) => {
    const problems = constraintProblems(constraint);
    if (problems.length > 0)
      errors.push(`Constraint ${index + 1} validation failed: ${multierror(problems)}`);
  });
}

function constraintProblems({ LTarget, RTarget, Operand }: Constraint): string[] {
  const problems: string[] = [];
  if (Operand === '') problems.push('Missing constraint operand');
  if (Operand.startsWith('set_contains') && RTarget === '')
    problems.push('Set contains constraint requires an RTarget');
  if (Operand === 'regexp') {
    try {
      new RegExp(RTarget);
    } catch (error) {
      problems.push(
        `Regular expression failed to compile: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  if ((Operand === 'is_set' || Operand === 'is_not_set') && RTarget !== '') {
    problems.push(`Operator ${q(Operand)} does not support an RTarget`);
  }
  if (EQUALITY.includes(Operand) && RTarget === '')
    problems.push(`Operator ${q(Operand)} requires an RTarget`);
  if (Operand !== '' && !KNOWN_OPERANDS.includes(Operand))
    problems.push(`Unknown constraint type ${q(Operand)}`);
  if (Operand !== 'distinct_hosts') {
    if (LTarget === '') problems.push('no attribute provided but is required by operator');
    else if (LTarget.startsWith('$')) {
      if (!LTarget.startsWith('${')) problems.push(`attribute ${q(LTarget)} is missing an opening brace`);
      else if (!LTarget.endsWith('}')) problems.push(`attribute ${q(LTarget)} is missing a closing brace`);
      else if (!EXACT_TARGETS.includes(LTarget) && !/^\$\{(attr|device|meta)\./.test(LTarget)) {
        problems.push(`unsupported attribute ${q(LTarget)}`);
      }
    }
  }
  return problems;
}

/** Go's `%q` for the plain strings in these messages. */
export const q = (text: string): string => JSON.stringify(text);
