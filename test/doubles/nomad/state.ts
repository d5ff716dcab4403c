/*
 * The server's state store: jobs, allocations, evaluations and namespaces with one raft-like index that
 * every write increases. As in Nomad's memdb, each table remembers the index of its last write, and
 * each object its CreateIndex/ModifyIndex: a blocking query answers once the index it watches exceeds
 * the client's `index`. Job status and job summaries are derived after every write, as the state
 * store's `setJobStatus` and summary updates do (a change bumps the job's ModifyIndex).
 */
import type { Allocation, Evaluation, Job, Namespace } from './model.js';
import { isAllocTerminal, isEvalTerminal } from './model.js';

export type Table = 'jobs' | 'job_summary' | 'allocs' | 'evals' | 'namespaces';

export interface GroupSummary {
  Queued: number;
  Complete: number;
  Failed: number;
  Running: number;
  Starting: number;
  Lost: number;
  Unknown: number;
}

export interface JobSummary {
  JobID: string;
  Namespace: string;
  Summary: Record<string, GroupSummary>;
  Children: { Pending: number; Running: number; Dead: number };
  CreateIndex: number;
  ModifyIndex: number;
}

export const jobKey = (namespace: string, id: string): string => `${namespace}\u0000${id}`;

export class NomadState {
  /** The last raft index applied; a new cluster starts at 1. */
  index = 1;
  readonly tables: Record<Table, number> = { jobs: 1, job_summary: 1, allocs: 1, evals: 1, namespaces: 1 };
  readonly jobs = new Map<string, Job>();
  readonly summaries = new Map<string, JobSummary>();
  readonly allocs = new Map<string, Allocation>();
  readonly evals = new Map<string, Evaluation>();
  readonly namespaces = new Map<string, Namespace>();
  private readonly waiters = new Set<() => void>();

  constructor(namespaces: readonly string[]) {
    for (const name of ['default', ...namespaces.filter((n) => n !== 'default')]) {
      const Description = name === 'default' ? 'Default shared namespace' : '';
      this.namespaces.set(name, { Name: name, Description, CreateIndex: 1, ModifyIndex: 1 });
    }
  }

  job(namespace: string, id: string): Job | undefined {
    return this.jobs.get(jobKey(namespace, id));
  }

  /** Jobs in `namespace` (`*` for all), sorted by namespace then ID as memdb iterates them. */
  jobsIn(namespace: string): Job[] {
    return [...this.jobs.values()]
      .filter((job) => namespace === '*' || job.Namespace === namespace)
      .sort((a, b) => (a.Namespace + a.ID < b.Namespace + b.ID ? -1 : 1));
  }

  /** Allocations of a job; without `all`, only those of the current incarnation (same CreateIndex). */
  allocsOfJob(namespace: string, id: string, all = true): Allocation[] {
    const job = this.job(namespace, id);
    return [...this.allocs.values()]
      .filter((alloc) => alloc.Namespace === namespace && alloc.JobID === id)
      .filter((alloc) => all || job === undefined || alloc.Job.CreateIndex === job.CreateIndex)
      .sort((a, b) => a.CreateIndex - b.CreateIndex);
  }

  evalsOfJob(namespace: string, id: string): Evaluation[] {
    return [...this.evals.values()]
      .filter((evaluation) => evaluation.Namespace === namespace && evaluation.JobID === id)
      .sort((a, b) => a.CreateIndex - b.CreateIndex);
  }

  /**
   * Applies one write at a new index: `apply` mutates objects (stamping them with the index it gets)
   * and names the tables it touched. Job statuses and summaries follow, then blocked queries wake.
   */
  commit(tables: Table[], apply: (index: number) => void): number {
    const index = ++this.index;
    apply(index);
    for (const table of tables) this.tables[table] = index;
    this.derive(index);
    for (const wake of [...this.waiters]) wake();
    return index;
  }

  /** Resolves at the next commit, after `ms`, or when `signal` aborts, whichever is first. */
  nextChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal.addEventListener('abort', done);
    });
  }

  /** Wakes every waiting query (closing the server). */
  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private derive(index: number): void {
    for (const [key, job] of this.jobs) {
      const status = this.statusOf(job);
      if (status !== job.Status) {
        job.Status = status;
        job.ModifyIndex = index;
        this.tables.jobs = index;
      }
      const summary = this.summaryOf(job);
      const previous = this.summaries.get(key);
      if (previous === undefined || JSON.stringify(previous.Summary) !== JSON.stringify(summary)) {
        this.summaries.set(key, {
          JobID: job.ID,
          Namespace: job.Namespace,
          Summary: summary,
          Children: { Pending: 0, Running: 0, Dead: 0 },
          CreateIndex: previous?.CreateIndex ?? index,
          ModifyIndex: index,
        });
        this.tables.job_summary = index;
      }
    }
    for (const key of this.summaries.keys()) {
      if (!this.jobs.has(key)) {
        this.summaries.delete(key);
        this.tables.job_summary = index;
      }
    }
  }

  /** The state store's getJobStatus: running with a live allocation, pending with a live eval, else dead. */
  private statusOf(job: Job): Job['Status'] {
    if (job.Type === 'system' || job.extra.Periodic != null || job.extra.ParameterizedJob != null) {
      return job.Stop ? 'dead' : 'running';
    }
    const allocs = this.allocsOfJob(job.Namespace, job.ID);
    if (allocs.some((alloc) => !isAllocTerminal(alloc))) return 'running';
    const evals = this.evalsOfJob(job.Namespace, job.ID);
    if (evals.some((evaluation) => !isEvalTerminal(evaluation))) return 'pending';
    return evals.length > 0 || job.Stop ? 'dead' : 'pending';
  }

  private summaryOf(job: Job): Record<string, GroupSummary> {
    const summary: Record<string, GroupSummary> = {};
    for (const group of job.TaskGroups) {
      summary[group.Name] = {
        Queued: 0,
        Complete: 0,
        Failed: 0,
        Running: 0,
        Starting: 0,
        Lost: 0,
        Unknown: 0,
      };
    }
    for (const alloc of this.allocsOfJob(job.Namespace, job.ID)) {
      const counts = summary[alloc.TaskGroup];
      if (counts === undefined) continue;
      if (alloc.ClientStatus === 'pending') counts.Starting++;
      else if (alloc.ClientStatus === 'running') counts.Running++;
      else if (alloc.ClientStatus === 'complete') counts.Complete++;
      else if (alloc.ClientStatus === 'failed') counts.Failed++;
      else if (alloc.ClientStatus === 'lost') counts.Lost++;
      else counts.Unknown++;
    }
    const blocked = this.evalsOfJob(job.Namespace, job.ID).find(
      (evaluation) => evaluation.Status === 'blocked',
    );
    for (const [group, queued] of Object.entries(blocked?.QueuedAllocations ?? {})) {
      const counts = summary[group];
      if (counts !== undefined) counts.Queued = queued;
    }
    return summary;
  }
}
