/*
 * The double's in-memory model, in Nomad's own field names (nomad/structs): a job after the agent's
 * canonicalisation, its allocations with the client's task states, and evaluations. Durations are
 * nanoseconds, `…Time` fields unix nanoseconds, and task-state times milliseconds (rendered as RFC 3339).
 */

export interface Constraint {
  LTarget: string;
  RTarget: string;
  Operand: string;
}

export interface RestartPolicy {
  Attempts: number;
  Interval: number;
  Delay: number;
  Mode: string;
  RenderTemplates: boolean;
}

export interface ReschedulePolicy {
  Attempts: number;
  Interval: number;
  Delay: number;
  DelayFunction: string;
  MaxDelay: number;
  Unlimited: boolean;
}

export interface Resources {
  CPU: number;
  Cores: number;
  MemoryMB: number;
  MemoryMaxMB: number;
}

export interface Task {
  Name: string;
  Driver: string;
  User: string;
  Config: Record<string, unknown>;
  Env: Record<string, string> | null;
  Resources: Resources;
  KillTimeout: number;
  KillSignal: string;
  Meta: Record<string, string> | null;
  Constraints: Constraint[] | null;
  RestartPolicy: RestartPolicy;
  LogConfig: { MaxFiles: number; MaxFileSizeMB: number; Disabled: boolean };
  Leader: boolean;
  /** Fields the double keeps and shows but does not act on (Lifecycle, Services, Templates…). */
  extra: Record<string, unknown>;
}

export interface TaskGroup {
  Name: string;
  Count: number;
  Tasks: Task[];
  Constraints: Constraint[] | null;
  RestartPolicy: RestartPolicy;
  ReschedulePolicy: ReschedulePolicy | null;
  EphemeralDisk: { Sticky: boolean; Migrate: boolean; SizeMB: number };
  Meta: Record<string, string> | null;
  extra: Record<string, unknown>;
}

/** A job as the server stores it (structs.Job). */
export interface Job {
  ID: string;
  Name: string;
  Namespace: string;
  Region: string;
  Type: string;
  Priority: number;
  AllAtOnce: boolean;
  Datacenters: string[];
  NodePool: string;
  Constraints: Constraint[] | null;
  TaskGroups: TaskGroup[];
  Meta: Record<string, string> | null;
  Stop: boolean;
  ParentID: string;
  Status: 'pending' | 'running' | 'dead';
  StatusDescription: string;
  Version: number;
  SubmitTime: number;
  CreateIndex: number;
  ModifyIndex: number;
  JobModifyIndex: number;
  extra: Record<string, unknown>;
}

export type TaskStateName = 'pending' | 'running' | 'dead';

export interface TaskEvent {
  Type: string;
  Time: number;
  Message: string;
  DisplayMessage: string;
  Details: Record<string, string>;
  FailsTask: boolean;
  RestartReason: string;
  SetupError: string;
  DriverError: string;
  ExitCode: number;
  Signal: number;
  KillTimeout: number;
  KillError: string;
  KillReason: string;
  StartDelay: number;
  DownloadError: string;
  ValidationError: string;
  DiskLimit: number;
  FailedSibling: string;
  VaultError: string;
  TaskSignalReason: string;
  TaskSignal: string;
  DriverMessage: string;
  GenericSource: string;
}

export interface TaskState {
  State: TaskStateName;
  Failed: boolean;
  Restarts: number;
  /** Milliseconds since the epoch; undefined renders as Go's zero time. */
  LastRestart?: number;
  StartedAt?: number;
  FinishedAt?: number;
  Events: TaskEvent[];
}

export type ClientStatus = 'pending' | 'running' | 'complete' | 'failed' | 'lost' | 'unknown';

export interface RescheduleEvent {
  RescheduleTime: number;
  PrevAllocID: string;
  PrevNodeID: string;
  Delay: number;
}

/** Placement metrics (structs.AllocMetric), also the shape of an evaluation's FailedTGAllocs. */
export interface AllocMetric {
  NodesEvaluated: number;
  NodesFiltered: number;
  NodesInPool: number;
  NodePool: string;
  NodesAvailable: Record<string, number>;
  ClassFiltered: Record<string, number> | null;
  ConstraintFiltered: Record<string, number> | null;
  NodesExhausted: number;
  ClassExhausted: Record<string, number> | null;
  DimensionExhausted: Record<string, number> | null;
  QuotaExhausted: string[] | null;
  ResourcesExhausted: Record<string, Resources> | null;
  Scores: Record<string, number> | null;
  ScoreMetaData: unknown[] | null;
  AllocationTime: number;
  CoalescedFailures: number;
}

export interface Allocation {
  ID: string;
  Namespace: string;
  EvalID: string;
  Name: string;
  /** The slot index in `Name` (`<job>.<group>[index]`). */
  index: number;
  NodeID: string;
  NodeName: string;
  JobID: string;
  /** The job as it was when the allocation was placed. */
  Job: Job;
  TaskGroup: string;
  Metrics: AllocMetric;
  DesiredStatus: 'run' | 'stop' | 'evict';
  DesiredDescription: string;
  ClientStatus: ClientStatus;
  ClientDescription: string;
  /** Null until the client reports for the first time, as in Nomad. */
  TaskStates: Record<string, TaskState> | null;
  PreviousAllocation: string;
  NextAllocation: string;
  FollowupEvalID: string;
  RescheduleTracker: { Events: RescheduleEvent[] } | null;
  CreateIndex: number;
  ModifyIndex: number;
  AllocModifyIndex: number;
  CreateTime: number;
  ModifyTime: number;
  /** Docker container ids the double created for each task (oldest first), for tests. */
  containers: Record<string, string[]>;
}

export type EvalStatus = 'blocked' | 'pending' | 'complete' | 'failed' | 'canceled';

export interface Evaluation {
  ID: string;
  Namespace: string;
  Priority: number;
  Type: string;
  TriggeredBy: string;
  JobID: string;
  JobModifyIndex: number;
  NodeID: string;
  NodeModifyIndex: number;
  Status: EvalStatus;
  StatusDescription: string;
  /** Unix milliseconds before which a delayed (reschedule) evaluation is not processed. */
  waitUntil?: number;
  NextEval: string;
  PreviousEval: string;
  BlockedEval: string;
  FailedTGAllocs: Record<string, AllocMetric> | null;
  QueuedAllocations: Record<string, number> | null;
  SnapshotIndex: number;
  CreateIndex: number;
  ModifyIndex: number;
  CreateTime: number;
  ModifyTime: number;
}

export interface Namespace {
  Name: string;
  Description: string;
  CreateIndex: number;
  ModifyIndex: number;
}

/** The one client node of the double. */
export interface NodeInfo {
  ID: string;
  Name: string;
  Datacenter: string;
  NodeClass: string;
  NodePool: string;
  Attributes: Record<string, string>;
  Meta: Record<string, string>;
  /** Total compute (MHz), memory (MB) and disk (MB) the scheduler may place. */
  cpu: number;
  memoryMB: number;
  diskMB: number;
  status: 'ready' | 'down';
}

export const isAllocTerminal = (alloc: Allocation): boolean =>
  alloc.DesiredStatus !== 'run' || ['complete', 'failed', 'lost'].includes(alloc.ClientStatus);

export const isClientTerminal = (alloc: Allocation): boolean =>
  ['complete', 'failed', 'lost'].includes(alloc.ClientStatus);

export const isEvalTerminal = (evaluation: Evaluation): boolean =>
  ['complete', 'failed', 'canceled'].includes(evaluation.Status);
