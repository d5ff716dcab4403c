/*
 * The JSON Nomad's agent writes for the double's objects: structs.Job, JobListStub, Allocation,
 * AllocListStub, Evaluation and TaskState, with Nomad's field names and zero values (null slices and
 * maps, Go's zero time), so a client decoding them sees what a real agent sends.
 */
import type { Allocation, Evaluation, Job, Task, TaskGroup, TaskState } from './model.js';
import type { JobSummary } from './state.js';
import { goTime } from './util.js';

const nulls = (...names: string[]): Record<string, null> =>
  Object.fromEntries(names.map((name) => [name, null]));

export function renderJob(job: Job): Record<string, unknown> {
  return {
    Stop: job.Stop,
    Region: job.Region,
    Namespace: job.Namespace,
    ID: job.ID,
    ParentID: job.ParentID,
    Name: job.Name,
    Type: job.Type,
    Priority: job.Priority,
    AllAtOnce: job.AllAtOnce,
    Datacenters: job.Datacenters,
    NodePool: job.NodePool,
    Constraints: job.Constraints,
    ...nulls('Affinities', 'Spreads'),
    TaskGroups: job.TaskGroups.map(renderGroup),
    Update: { Stagger: 0, MaxParallel: 0, HealthCheck: '', MinHealthyTime: 0, HealthyDeadline: 0 },
    ...nulls('Multiregion', 'Periodic', 'ParameterizedJob'),
    Dispatched: false,
    DispatchIdempotencyToken: '',
    Payload: null,
    Meta: job.Meta,
    ConsulToken: '',
    ConsulNamespace: '',
    VaultToken: '',
    VaultNamespace: '',
    NomadTokenID: '',
    Status: job.Status,
    StatusDescription: job.StatusDescription,
    Stable: false,
    Version: job.Version,
    SubmitTime: job.SubmitTime,
    CreateIndex: job.CreateIndex,
    ModifyIndex: job.ModifyIndex,
    JobModifyIndex: job.JobModifyIndex,
    ...nulls('UI', 'VersionTag'),
    ...job.extra,
  };
}

function renderGroup(group: TaskGroup): Record<string, unknown> {
  return {
    Name: group.Name,
    Count: group.Count,
    ...nulls('Update', 'Migrate'),
    Constraints: group.Constraints,
    Scaling: null,
    RestartPolicy: group.RestartPolicy,
    Tasks: group.Tasks.map(renderTask),
    EphemeralDisk: group.EphemeralDisk,
    Meta: group.Meta,
    ReschedulePolicy: group.ReschedulePolicy,
    ...nulls('Affinities', 'Spreads', 'Networks', 'Consul', 'Services', 'Volumes', 'ShutdownDelay'),
    ...nulls('StopAfterClientDisconnect', 'MaxClientDisconnect', 'Disconnect', 'MaxRunDuration'),
    PreventRescheduleOnLost: false,
    ...group.extra,
  };
}

function renderTask(task: Task): Record<string, unknown> {
  return {
    Name: task.Name,
    Driver: task.Driver,
    User: task.User,
    Config: task.Config,
    Env: task.Env,
    ...nulls('Services', 'Vault', 'Consul', 'Templates'),
    Constraints: task.Constraints,
    Affinities: null,
    Resources: {
      ...task.Resources,
      DiskMB: 0,
      IOPS: 0,
      ...nulls('Networks', 'Devices', 'NUMA'),
      SecretsMB: 1,
    },
    RestartPolicy: task.RestartPolicy,
    ...nulls('DispatchPayload', 'Lifecycle'),
    Meta: task.Meta,
    KillTimeout: task.KillTimeout,
    LogConfig: { ...task.LogConfig, Enabled: !task.LogConfig.Disabled },
    Artifacts: null,
    Leader: task.Leader,
    ShutdownDelay: 0,
    ...nulls('VolumeMounts', 'ScalingPolicies'),
    KillSignal: task.KillSignal,
    Kind: '',
    ...nulls('CSIPluginConfig', 'Identity', 'Identities', 'Actions', 'Schedule'),
    ...task.extra,
  };
}

export function renderSummary(summary: JobSummary): Record<string, unknown> {
  return { ...summary };
}

/** structs.JobListStub; `Meta` only with `meta=true` (omitempty otherwise). */
export function renderJobStub(
  job: Job,
  summary: JobSummary | undefined,
  withMeta: boolean,
): Record<string, unknown> {
  return {
    ID: job.ID,
    ParentID: job.ParentID,
    Name: job.Name,
    Namespace: job.Namespace,
    Datacenters: job.Datacenters,
    NodePool: job.NodePool,
    Multiregion: null,
    Type: job.Type,
    Priority: job.Priority,
    Periodic: job.extra.Periodic != null,
    ParameterizedJob: job.extra.ParameterizedJob != null,
    Stop: job.Stop,
    Status: job.Status,
    StatusDescription: job.StatusDescription,
    JobSummary: summary === undefined ? null : renderSummary(summary),
    CreateIndex: job.CreateIndex,
    ModifyIndex: job.ModifyIndex,
    JobModifyIndex: job.JobModifyIndex,
    SubmitTime: job.SubmitTime,
    ...(withMeta && job.Meta !== null ? { Meta: job.Meta } : {}),
  };
}

export function renderTaskStates(states: Record<string, TaskState> | null): Record<string, unknown> | null {
  if (states === null) return null;
  return Object.fromEntries(
    Object.entries(states).map(([name, state]) => [
      name,
      {
        State: state.State,
        Failed: state.Failed,
        Restarts: state.Restarts,
        LastRestart: goTime(state.LastRestart),
        StartedAt: goTime(state.StartedAt),
        FinishedAt: goTime(state.FinishedAt),
        Events: state.Events.map((event) => ({ ...event, Details: { ...event.Details } })),
        Paused: '',
      },
    ]),
  );
}

/** structs.AllocListStub (`resources=true` adds AllocatedResources). */
export function renderAllocStub(alloc: Allocation, withResources = false): Record<string, unknown> {
  return {
    ID: alloc.ID,
    EvalID: alloc.EvalID,
    Name: alloc.Name,
    Namespace: alloc.Namespace,
    NodeID: alloc.NodeID,
    NodeName: alloc.NodeName,
    JobID: alloc.JobID,
    JobType: alloc.Job.Type,
    JobVersion: alloc.Job.Version,
    TaskGroup: alloc.TaskGroup,
    ...(withResources ? { AllocatedResources: allocatedResources(alloc) } : {}),
    DesiredStatus: alloc.DesiredStatus,
    DesiredDescription: alloc.DesiredDescription,
    ClientStatus: alloc.ClientStatus,
    ClientDescription: alloc.ClientDescription,
    DesiredTransition: { Migrate: null, Reschedule: null, ForceReschedule: null, NoShutdownDelay: null },
    TaskStates: renderTaskStates(alloc.TaskStates),
    DeploymentStatus: null,
    FollowupEvalID: alloc.FollowupEvalID,
    NextAllocation: alloc.NextAllocation,
    RescheduleTracker: alloc.RescheduleTracker,
    PreemptedAllocations: null,
    PreemptedByAllocation: '',
    CreateIndex: alloc.CreateIndex,
    ModifyIndex: alloc.ModifyIndex,
    CreateTime: alloc.CreateTime,
    ModifyTime: alloc.ModifyTime,
  };
}

function allocatedResources(alloc: Allocation): Record<string, unknown> {
  const group = alloc.Job.TaskGroups.find((g) => g.Name === alloc.TaskGroup);
  const tasks = Object.fromEntries(
    (group?.Tasks ?? []).map((task) => [
      task.Name,
      {
        Cpu: { CpuShares: task.Resources.CPU, ReservedCores: null },
        Memory: { MemoryMB: task.Resources.MemoryMB, MemoryMaxMB: task.Resources.MemoryMaxMB },
        Networks: null,
        Devices: null,
      },
    ]),
  );
  return {
    Tasks: tasks,
    TaskLifecycles: null,
    Shared: { Networks: null, DiskMB: group?.EphemeralDisk.SizeMB ?? 0, Ports: null },
  };
}

/** structs.Allocation as `GET /v1/allocation/:id` returns it. */
export function renderAlloc(alloc: Allocation): Record<string, unknown> {
  const stub = renderAllocStub(alloc, true);
  return {
    ...stub,
    Job: renderJob(alloc.Job),
    Resources: null,
    SharedResources: null,
    TaskResources: null,
    Metrics: alloc.Metrics,
    AllocStates: null,
    PreviousAllocation: alloc.PreviousAllocation,
    DeploymentID: '',
    NetworkStatus: null,
    SigningKeyID: '',
    AllocModifyIndex: alloc.AllocModifyIndex,
  };
}

export function renderEval(evaluation: Evaluation): Record<string, unknown> {
  const { waitUntil, ...fields } = evaluation;
  return {
    ...fields,
    DeploymentID: '',
    Wait: 0,
    WaitUntil: goTime(waitUntil),
    RelatedEvals: null,
    PlanAnnotations: null,
    ClassEligibility: null,
    QuotaLimitReached: '',
    EscapedComputedClass: false,
    AnnotatePlan: false,
    LeaderACL: '',
  };
}
