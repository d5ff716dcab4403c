/*
 * The reconciler's per-slot decisions (scheduler/reconciler): what a task-group slot whose newest
 * allocation is lost or failed needs, by the ReschedulePolicy (attempts within the interval, the
 * constant / exponential / fibonacci delay, at once when due within a second, else a delayed follow-up
 * evaluation), and the evaluations and reschedule events the scheduler creates.
 */
import type { Allocation, Evaluation, RescheduleEvent, TaskGroup } from './model.js';
import { nowNs, uuid } from './util.js';

/** Nomad reschedules at once when the next attempt is due within this window (rescheduleWindowSize). */
const RESCHEDULE_WINDOW_MS = 1000;

/** A new pending evaluation for `job` (its fields as structs.Evaluation). */
export function newEval(
  job: { ID: string; Namespace: string; Type: string; Priority: number; JobModifyIndex: number },
  index: number,
  fields: Partial<Evaluation>,
): Evaluation {
  const now = nowNs();
  return {
    ID: uuid(),
    Namespace: job.Namespace,
    Priority: job.Priority,
    Type: job.Type,
    TriggeredBy: 'job-register',
    JobID: job.ID,
    JobModifyIndex: job.JobModifyIndex,
    NodeID: '',
    NodeModifyIndex: 0,
    Status: 'pending',
    StatusDescription: '',
    NextEval: '',
    PreviousEval: '',
    BlockedEval: '',
    FailedTGAllocs: null,
    QueuedAllocations: null,
    SnapshotIndex: 0,
    CreateIndex: index,
    ModifyIndex: index,
    CreateTime: now,
    ModifyTime: now,
    ...fields,
  };
}

export type Decision =
  | { kind: 'keep' }
  | { kind: 'place'; previous?: Allocation; reschedule?: boolean }
  | { kind: 'later'; at: number };

/** What a slot whose newest allocation is `latest` needs: keep it, place one (a replacement), or later. */
export function slotDecision(latest: Allocation | undefined, group: TaskGroup): Decision {
  if (latest === undefined) return { kind: 'place' };
  if (latest.NextAllocation !== '') return { kind: 'keep' };
  if (latest.ClientStatus === 'lost') return { kind: 'place', previous: latest };
  if (latest.ClientStatus !== 'failed' || latest.DesiredStatus !== 'run') return { kind: 'keep' };
  const policy = group.ReschedulePolicy;
  if (policy === null || !(policy.Attempts > 0 || policy.Unlimited)) return { kind: 'keep' };
  const failedAt = failTime(latest);
  const events = latest.RescheduleTracker?.Events ?? [];
  if (!policy.Unlimited) {
    const since = failedAt * 1_000_000 - policy.Interval;
    if (events.filter((event) => event.RescheduleTime >= since).length >= policy.Attempts)
      return { kind: 'keep' };
  }
  const at = failedAt + nextDelay(latest, group) / 1_000_000;
  if (at - Date.now() <= RESCHEDULE_WINDOW_MS) return { kind: 'place', previous: latest, reschedule: true };
  return { kind: 'later', at };
}

/** When the allocation failed (its last task's FinishedAt), in unix milliseconds. */
function failTime(alloc: Allocation): number {
  const finished = Object.values(alloc.TaskStates ?? {}).map((state) => state.FinishedAt ?? 0);
  return Math.max(0, ...finished) || alloc.ModifyTime / 1_000_000;
}

/** The ReschedulePolicy's next delay (ns): constant, doubling, or Fibonacci, capped at MaxDelay. */
function nextDelay(alloc: Allocation, group: TaskGroup): number {
  const policy = group.ReschedulePolicy;
  if (policy === null) return 0;
  const events = alloc.RescheduleTracker?.Events ?? [];
  const last = events.at(-1)?.Delay;
  let delay = policy.Delay;
  if (last !== undefined && policy.DelayFunction === 'exponential') delay = last * 2;
  if (last !== undefined && policy.DelayFunction === 'fibonacci') delay = last + (events.at(-2)?.Delay ?? 0);
  return policy.DelayFunction !== 'constant' && policy.MaxDelay > 0
    ? Math.min(delay, policy.MaxDelay)
    : delay;
}

export function rescheduleEvent(previous: Allocation): RescheduleEvent {
  const delay = previous.Job.TaskGroups.find((g) => g.Name === previous.TaskGroup);
  return {
    RescheduleTime: nowNs(),
    PrevAllocID: previous.ID,
    PrevNodeID: previous.NodeID,
    Delay: delay === undefined ? 0 : nextDelay(previous, delay),
  };
}
