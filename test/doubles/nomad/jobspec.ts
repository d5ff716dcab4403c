/*
 * A decoded `api.Job` made into the job the server stores, as Nomad's agent and server do it: the api
 * package's `Canonicalize` defaults (Name = ID, Type service, Priority 50, group Count 1, the batch and
 * service restart/reschedule defaults, task Resources 100 MHz / 300 MB, KillTimeout 5 s, LogConfig 10×10
 * MB, EphemeralDisk 300 MB), then the server's (Datacenters `["*"]`, NodePool `default`). The
 * admission checks that follow are in validate.ts.
 */
import type {
  Constraint,
  Job,
  ReschedulePolicy,
  Resources,
  RestartPolicy,
  Task,
  TaskGroup,
} from './model.js';
import { HOUR_NS, MINUTE_NS, SECOND_NS } from './util.js';

type Raw = Record<string, unknown>;

const JOB_FIELDS = ['ID', 'Name', 'Namespace', 'Region', 'Type', 'Priority', 'AllAtOnce', 'Datacenters'];
const MODELLED_JOB = new Set([...JOB_FIELDS, 'NodePool', 'Constraints', 'TaskGroups', 'Reschedule', 'Meta']);
const MODELLED_GROUP = new Set([
  'Name',
  'Count',
  'Tasks',
  'Constraints',
  'RestartPolicy',
  'ReschedulePolicy',
]);
const MODELLED_TASK = new Set(['Name', 'Driver', 'User', 'Config', 'Env', 'Resources', 'KillTimeout']);
for (const name of ['KillSignal', 'Meta', 'Constraints', 'RestartPolicy', 'LogConfig', 'Leader']) {
  MODELLED_TASK.add(name);
}
for (const name of ['EphemeralDisk', 'Meta']) MODELLED_GROUP.add(name);
/** Job fields a client may send back from a read, which carry no meaning in a registration. */
const READ_ONLY_JOB = new Set(['Stop', 'ParentID', 'Version', 'Status', 'StatusDescription', 'Stable']);
for (const name of ['SubmitTime', 'CreateIndex', 'ModifyIndex', 'JobModifyIndex', 'NomadTokenID']) {
  READ_ONLY_JOB.add(name);
}

const str = (value: unknown, fallback = ''): string => (typeof value === 'string' ? value : fallback);
const num = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);
const bool = (value: unknown, fallback = false): boolean => (typeof value === 'boolean' ? value : fallback);
const raw = (value: unknown): Raw => (typeof value === 'object' && value !== null ? (value as Raw) : {});
const rawList = (value: unknown): Raw[] => (Array.isArray(value) ? value.map(raw) : []);
const stringMap = (value: unknown): Record<string, string> | null => {
  const entries = Object.entries(raw(value));
  return entries.length === 0 ? null : (Object.fromEntries(entries) as Record<string, string>);
};

function restartDefaults(type: string): RestartPolicy {
  const service = type === 'service' || type === 'system';
  return service
    ? { Attempts: 2, Interval: 30 * MINUTE_NS, Delay: 15 * SECOND_NS, Mode: 'fail', RenderTemplates: false }
    : { Attempts: 3, Interval: 24 * HOUR_NS, Delay: 15 * SECOND_NS, Mode: 'fail', RenderTemplates: false };
}

function rescheduleDefaults(type: string): ReschedulePolicy {
  if (type === 'service') {
    const MaxDelay = HOUR_NS;
    return {
      Attempts: 0,
      Interval: 0,
      Delay: 30 * SECOND_NS,
      DelayFunction: 'exponential',
      MaxDelay,
      Unlimited: true,
    };
  }
  if (type === 'batch') {
    const Interval = 24 * HOUR_NS;
    return {
      Attempts: 1,
      Interval,
      Delay: 5 * SECOND_NS,
      DelayFunction: 'constant',
      MaxDelay: 0,
      Unlimited: false,
    };
  }
  return { Attempts: 0, Interval: 0, Delay: 0, DelayFunction: '', MaxDelay: 0, Unlimited: false };
}

/** Nomad's `Merge`: every field the request sets (not null) wins over the default. */
function merge<T extends object>(base: T, given: Raw | undefined): T {
  const out = { ...base } as Record<string, unknown>;
  for (const [key, value] of Object.entries(given ?? {})) if (value !== null && key in out) out[key] = value;
  return out as T;
}

function constraints(value: unknown): Constraint[] | null {
  const list = rawList(value).map((c) => ({
    LTarget: str(c.LTarget),
    RTarget: str(c.RTarget),
    Operand: str(c.Operand),
  }));
  return list.length === 0 ? null : list;
}

const extraOf = (source: Raw, modelled: Set<string>): Raw =>
  Object.fromEntries(Object.entries(source).filter(([key, value]) => !modelled.has(key) && value !== null));

/**
 * The stored job for a decoded `api.Job`, in the namespace and region the request resolved to.
 * `unmodelled` receives the dotted names of fields that were sent but that the double does not act on.
 */
export function canonicalJob(
  input: Raw,
  where: { namespace: string; region: string },
  unmodelled: (field: string) => void,
): Job {
  const id = str(input.ID);
  const type = str(input.Type, 'service');
  const extra = extraOf(input, new Set([...MODELLED_JOB, ...READ_ONLY_JOB]));
  for (const key of Object.keys(extra)) unmodelled(`Job.${key}`);
  const jobReschedule =
    input.Reschedule === undefined || input.Reschedule === null ? undefined : raw(input.Reschedule);
  const datacenters = Array.isArray(input.Datacenters) ? (input.Datacenters as string[]) : [];
  return {
    ID: id,
    Name: str(input.Name, id),
    Namespace: where.namespace,
    Region: where.region,
    Type: type,
    Priority: num(input.Priority, 50),
    AllAtOnce: bool(input.AllAtOnce),
    Datacenters: datacenters.length === 0 ? ['*'] : datacenters,
    NodePool: str(input.NodePool) || 'default',
    Constraints: constraints(input.Constraints),
    TaskGroups: rawList(input.TaskGroups).map((group) =>
      canonicalGroup(group, type, jobReschedule, unmodelled),
    ),
    Meta: stringMap(input.Meta),
    Stop: bool(input.Stop),
    ParentID: str(input.ParentID),
    Status: 'pending',
    StatusDescription: '',
    Version: 0,
    SubmitTime: 0,
    CreateIndex: 0,
    ModifyIndex: 0,
    JobModifyIndex: 0,
    extra,
  };
}

function canonicalGroup(
  group: Raw,
  type: string,
  jobReschedule: Raw | undefined,
  unmodelled: (f: string) => void,
) {
  const name = str(group.Name);
  const extra = extraOf(group, MODELLED_GROUP);
  for (const key of Object.keys(extra)) unmodelled(`TaskGroups[${name}].${key}`);
  const restart = merge(restartDefaults(type), raw(group.RestartPolicy));
  const givenReschedule = group.ReschedulePolicy === undefined || group.ReschedulePolicy === null;
  const reschedule =
    type === 'system' || type === 'sysbatch'
      ? null
      : merge(
          merge(rescheduleDefaults(type), jobReschedule),
          givenReschedule ? undefined : raw(group.ReschedulePolicy),
        );
  const disk = raw(group.EphemeralDisk);
  const result: TaskGroup = {
    Name: name,
    Count: num(group.Count, 1),
    Tasks: [],
    Constraints: constraints(group.Constraints),
    RestartPolicy: restart,
    ReschedulePolicy: reschedule,
    EphemeralDisk: { Sticky: bool(disk.Sticky), Migrate: bool(disk.Migrate), SizeMB: num(disk.SizeMB, 300) },
    Meta: stringMap(group.Meta),
    extra,
  };
  result.Tasks = rawList(group.Tasks).map((task) => canonicalTask(task, result, unmodelled));
  return result;
}

function canonicalTask(task: Raw, group: TaskGroup, unmodelled: (f: string) => void): Task {
  const name = str(task.Name);
  const extra = extraOf(task, MODELLED_TASK);
  for (const key of Object.keys(extra)) unmodelled(`TaskGroups[${group.Name}].Tasks[${name}].${key}`);
  const resources = raw(task.Resources);
  const cores = resources.Cores;
  const Resources: Resources = {
    CPU: num(resources.CPU, typeof cores === 'number' ? 0 : 100),
    Cores: num(cores, 0),
    MemoryMB: num(resources.MemoryMB, 300),
    MemoryMaxMB: num(resources.MemoryMaxMB, 0),
  };
  const log = raw(task.LogConfig);
  const env = task.Env === undefined || task.Env === null ? null : (raw(task.Env) as Record<string, string>);
  return {
    Name: name,
    Driver: str(task.Driver),
    User: str(task.User),
    Config: raw(task.Config),
    Env: env,
    Resources,
    KillTimeout: num(task.KillTimeout, 5 * SECOND_NS),
    KillSignal: str(task.KillSignal),
    Meta: stringMap(task.Meta),
    Constraints: constraints(task.Constraints),
    RestartPolicy: merge(group.RestartPolicy, raw(task.RestartPolicy)),
    LogConfig: {
      MaxFiles: num(log.MaxFiles, 10),
      MaxFileSizeMB: num(log.MaxFileSizeMB, 10),
      Disabled: bool(log.Disabled) || log.Enabled === false,
    },
    Leader: bool(task.Leader),
    extra,
  };
}
