/*
 * The server's scheduler for the one node, processing evaluations one at a time like Nomad's eval
 * broker and generic scheduler (scheduler/reconciler): each task-group slot `<job>.<group>[i]` gets an
 * allocation; a lost one is replaced; a failed one is rescheduled per the group's ReschedulePolicy (at
 * once, or by a delayed follow-up evaluation); what cannot be placed leaves a `blocked` evaluation
 * with FailedTGAllocs, retried when capacity frees or the node comes back. A stopped or purged job has
 * its live allocations stopped.
 */
import type { AllocMetric, Allocation, Evaluation, Job, NodeInfo, TaskGroup } from './model.js';
import { isAllocTerminal, isClientTerminal, isEvalTerminal } from './model.js';
import { demand, place, type Used } from './placement.js';
import { newEval, rescheduleEvent, slotDecision } from './reconcile.js';
import type { NomadState } from './state.js';
import { errorText, nowNs, uuid } from './util.js';

/** What the client agent must do after a scheduling decision. */
export interface ClientHooks {
  run(alloc: Allocation): void;
  stop(alloc: Allocation): void;
}

export const NOT_NEEDED = 'alloc not needed due to job update';
const UPDATING = 'alloc is being updated due to job update';
const RESCHEDULED = 'alloc was rescheduled because it failed';
export class Scheduler {
  private readonly queue: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private draining = false;
  private closed = false;

  constructor(
    private readonly state: NomadState,
    private readonly node: NodeInfo,
    private readonly client: ClientHooks,
  ) {}

  /** Queues an evaluation; it is processed after the current request has been answered. */
  enqueue(evalID: string): void {
    if (this.closed) return;
    this.queue.push(evalID);
    setImmediate(() => this.drain());
  }

  /** Processes every queued evaluation now. */
  drain(): void {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) this.processSafely(id);
    } finally {
      this.draining = false;
    }
  }

  /** Retries every blocked evaluation (capacity freed, or the node came back). */
  unblock(): void {
    for (const evaluation of this.state.evals.values()) {
      if (evaluation.Status === 'blocked') this.enqueue(evaluation.ID);
    }
  }

  /** A client reported a terminal allocation: a failure gets an `alloc-failure` evaluation. */
  allocTerminal(alloc: Allocation): void {
    const job = this.state.job(alloc.Namespace, alloc.JobID);
    if (alloc.ClientStatus === 'failed' && alloc.DesiredStatus === 'run' && job !== undefined && !job.Stop) {
      let created: Evaluation | undefined;
      this.state.commit(['evals'], (index) => {
        created = newEval(job, index, { TriggeredBy: 'alloc-failure' });
        this.state.evals.set(created.ID, created);
      });
      if (created !== undefined) this.enqueue(created.ID);
    }
    this.unblock();
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(evalID: string, at: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.enqueue(evalID);
      },
      Math.max(0, at - Date.now()),
    );
    this.timers.add(timer);
  }

  /** Runs from timers and setImmediate: a bug must fail the evaluation, not the process. */
  private processSafely(evalID: string): void {
    try {
      this.process(evalID);
    } catch (error) {
      const evaluation = this.state.evals.get(evalID);
      if (evaluation === undefined) return;
      this.state.commit(['evals'], (index) => {
        Object.assign(evaluation, {
          Status: 'failed',
          StatusDescription: errorText(error),
          ModifyIndex: index,
        });
      });
    }
  }

  private process(evalID: string): void {
    const evaluation = this.state.evals.get(evalID);
    if (evaluation === undefined || isEvalTerminal(evaluation)) return;
    if (evaluation.waitUntil !== undefined && evaluation.waitUntil > Date.now()) {
      this.later(evalID, evaluation.waitUntil);
      return;
    }
    const job = this.state.job(evaluation.Namespace, evaluation.JobID);
    const toRun: Allocation[] = [];
    const toStop: Allocation[] = [];
    const delayed: Evaluation[] = [];
    this.state.commit(['evals', 'allocs'], (index) => {
      /** Desired stop; the client kills what still runs (a failed, rescheduled one has nothing left). */
      const stop = (alloc: Allocation, why: string) => {
        Object.assign(alloc, {
          DesiredStatus: 'stop',
          DesiredDescription: why,
          ModifyIndex: index,
          ModifyTime: nowNs(),
        });
        alloc.AllocModifyIndex = index;
        if (!isClientTerminal(alloc)) toStop.push(alloc);
      };
      const allocs = this.state.allocsOfJob(evaluation.Namespace, evaluation.JobID);
      if (job === undefined || job.Stop) {
        for (const alloc of allocs) if (!isAllocTerminal(alloc)) stop(alloc, NOT_NEEDED);
        this.finish(evaluation, index, {}, {});
        // The double's choice: a blocked evaluation of a stopped job has nothing left to place.
        for (const other of this.state.evalsOfJob(evaluation.Namespace, evaluation.JobID)) {
          if (other.Status === 'blocked')
            Object.assign(other, { Status: 'complete', ModifyIndex: index, ModifyTime: nowNs() });
        }
        return;
      }
      const current = allocs.filter((alloc) => alloc.Job.CreateIndex === job.CreateIndex);
      for (const alloc of current) {
        const group = job.TaskGroups.find((g) => g.Name === alloc.TaskGroup);
        if (isAllocTerminal(alloc)) continue;
        if (group === undefined || alloc.index >= group.Count) stop(alloc, NOT_NEEDED);
        else if (alloc.Job.Version !== job.Version) stop(alloc, UPDATING);
      }
      const failed: Record<string, AllocMetric> = {};
      const queued: Record<string, number> = {};
      for (const group of job.TaskGroups) {
        queued[group.Name] = 0;
        for (let slot = 0; slot < group.Count; slot++) {
          const chain = current.filter(
            (a) => a.TaskGroup === group.Name && a.index === slot && a.Job.Version === job.Version,
          );
          const decision = slotDecision(chain.at(-1), group);
          if (decision.kind === 'keep') continue;
          if (decision.kind === 'later') {
            const latest = chain.at(-1);
            if (latest !== undefined && latest.FollowupEvalID === '') {
              const followup = newEval(job, index, {
                TriggeredBy: 'alloc-failure',
                StatusDescription: 'created for delayed rescheduling',
                PreviousEval: evaluation.ID,
                waitUntil: decision.at,
              });
              this.state.evals.set(followup.ID, followup);
              Object.assign(latest, { FollowupEvalID: followup.ID, ModifyIndex: index });
              delayed.push(followup);
            }
            continue;
          }
          const { fits, metric } = place(job, group, this.node, this.used());
          if (!fits) {
            queued[group.Name] = (queued[group.Name] ?? 0) + 1;
            const earlier = failed[group.Name];
            if (earlier === undefined) failed[group.Name] = metric;
            else earlier.CoalescedFailures++;
            continue;
          }
          const alloc = this.newAlloc(job, group, slot, evaluation, metric, index);
          const previous = decision.previous;
          if (previous !== undefined) {
            alloc.PreviousAllocation = previous.ID;
            Object.assign(previous, { NextAllocation: alloc.ID, ModifyIndex: index });
            if (decision.reschedule === true) {
              alloc.RescheduleTracker = {
                Events: [...(previous.RescheduleTracker?.Events ?? []), rescheduleEvent(previous)],
              };
              stop(previous, RESCHEDULED);
            }
          }
          this.state.allocs.set(alloc.ID, alloc);
          toRun.push(alloc);
        }
      }
      this.finish(evaluation, index, failed, queued);
    });
    for (const followup of delayed) this.later(followup.ID, followup.waitUntil ?? Date.now());
    for (const alloc of toStop) this.client.stop(alloc);
    for (const alloc of toRun) this.client.run(alloc);
  }

  private finish(
    evaluation: Evaluation,
    index: number,
    failed: Record<string, AllocMetric>,
    queued: Record<string, number>,
  ) {
    const unplaced = Object.keys(failed).length > 0;
    const wasBlocked = evaluation.Status === 'blocked';
    Object.assign(evaluation, {
      Status: unplaced && wasBlocked ? 'blocked' : 'complete',
      FailedTGAllocs: unplaced ? failed : null,
      QueuedAllocations: queued,
      SnapshotIndex: index - 1,
      ModifyIndex: index,
      ModifyTime: nowNs(),
    });
    if (!unplaced || wasBlocked) return;
    const job = { ...evaluation, ID: evaluation.JobID };
    const blocked = newEval(job, index, {
      TriggeredBy: 'queued-allocs',
      Status: 'blocked',
      StatusDescription: 'created to place remaining allocations',
      PreviousEval: evaluation.ID,
      FailedTGAllocs: structuredClone(failed),
      QueuedAllocations: queued,
    });
    for (const other of this.state.evalsOfJob(evaluation.Namespace, evaluation.JobID)) {
      if (other.Status !== 'blocked') continue;
      other.Status = 'canceled';
      other.StatusDescription = `existing blocked evaluation exists for job ${JSON.stringify(other.JobID)}`;
      other.ModifyIndex = index;
    }
    this.state.evals.set(blocked.ID, blocked);
    evaluation.BlockedEval = blocked.ID;
  }

  private used(): Used {
    const used: Used = { cpu: 0, memoryMB: 0, diskMB: 0 };
    for (const alloc of this.state.allocs.values()) {
      const group = alloc.Job.TaskGroups.find((g) => g.Name === alloc.TaskGroup);
      if (isAllocTerminal(alloc) || group === undefined || alloc.NodeID !== this.node.ID) continue;
      const need = demand(group);
      used.cpu += need.cpu;
      used.memoryMB += need.memoryMB;
      used.diskMB += need.diskMB;
    }
    return used;
  }

  private newAlloc(
    job: Job,
    group: TaskGroup,
    slot: number,
    evaluation: Evaluation,
    metric: AllocMetric,
    index: number,
  ) {
    const now = nowNs();
    const alloc: Allocation = {
      ID: uuid(),
      Namespace: job.Namespace,
      EvalID: evaluation.ID,
      Name: `${job.ID}.${group.Name}[${slot}]`,
      index: slot,
      NodeID: this.node.ID,
      NodeName: this.node.Name,
      JobID: job.ID,
      Job: structuredClone(job),
      TaskGroup: group.Name,
      Metrics: metric,
      DesiredStatus: 'run',
      DesiredDescription: '',
      ClientStatus: 'pending',
      ClientDescription: '',
      TaskStates: null,
      PreviousAllocation: '',
      NextAllocation: '',
      FollowupEvalID: '',
      RescheduleTracker: null,
      CreateIndex: index,
      ModifyIndex: index,
      AllocModifyIndex: index,
      CreateTime: now,
      ModifyTime: now,
      containers: {},
    };
    return alloc;
  }
}
