/*
 * Decodes a request body the way Nomad's agent does with Go's encoding/json into the `api` package's
 * structs: field names match case-insensitively, unknown fields are dropped, and a value of the wrong
 * JSON type fails with Go's `json: cannot unmarshal <kind> into Go struct field <Struct>.<path> of type
 * <type>` (a 400 from the agent). Only the fields the double reads are typed; the others (`any`) are
 * kept as sent so the job reads back the same.
 */

export type GoType =
  | { kind: 'string' }
  | { kind: 'int'; go: string; unsigned?: boolean }
  | { kind: 'bool' }
  | { kind: 'list'; of: GoType; go: string }
  | { kind: 'map'; of: GoType; go: string }
  | { kind: 'struct'; name: string; go: string; fields: Record<string, GoType> }
  | { kind: 'any' };

export class DecodeError extends Error {}

const str: GoType = { kind: 'string' };
const bool: GoType = { kind: 'bool' };
const any: GoType = { kind: 'any' };
const int = (go = 'int', unsigned = false): GoType => ({ kind: 'int', go, unsigned });
const duration = int('time.Duration');
const list = (of: GoType, go: string): GoType => ({ kind: 'list', of, go });
const strings = list(str, '[]string');
const stringMap: GoType = { kind: 'map', of: str, go: 'map[string]string' };
const struct = (name: string, fields: Record<string, GoType>): GoType => ({
  kind: 'struct',
  name,
  go: `api.${name}`,
  fields,
});

const constraints = list(
  struct('Constraint', { LTarget: str, RTarget: str, Operand: str }),
  '[]*api.Constraint',
);
const restartPolicy = struct('RestartPolicy', {
  Interval: duration,
  Attempts: int(),
  Delay: duration,
  Mode: str,
  RenderTemplates: bool,
});
const reschedulePolicy = struct('ReschedulePolicy', {
  Attempts: int(),
  Interval: duration,
  Delay: duration,
  DelayFunction: str,
  MaxDelay: duration,
  Unlimited: bool,
});
const unmodelled = (...names: string[]): Record<string, GoType> =>
  Object.fromEntries(names.map((name) => [name, any]));

const task = struct('Task', {
  Name: str,
  Driver: str,
  User: str,
  Config: { kind: 'map', of: any, go: 'map[string]interface {}' },
  Constraints: constraints,
  Env: stringMap,
  Resources: struct('Resources', {
    CPU: int(),
    Cores: int(),
    MemoryMB: int(),
    MemoryMaxMB: int(),
    DiskMB: int(),
    ...unmodelled('Networks', 'Devices', 'NUMA', 'SecretsMB', 'IOPS'),
  }),
  RestartPolicy: restartPolicy,
  Meta: stringMap,
  KillTimeout: duration,
  LogConfig: struct('LogConfig', { MaxFiles: int(), MaxFileSizeMB: int(), Disabled: bool, Enabled: bool }),
  Leader: bool,
  KillSignal: str,
  ...unmodelled('Lifecycle', 'Affinities', 'Services', 'Artifacts', 'Vault', 'Consul', 'Templates'),
  ...unmodelled('DispatchPayload', 'VolumeMounts', 'CSIPluginConfig', 'ShutdownDelay', 'Kind'),
  ...unmodelled('ScalingPolicies', 'Identity', 'Identities', 'Actions', 'Schedule', 'Secrets'),
});

const taskGroup = struct('TaskGroup', {
  Name: str,
  Count: int(),
  Constraints: constraints,
  Tasks: list(task, '[]*api.Task'),
  RestartPolicy: restartPolicy,
  ReschedulePolicy: reschedulePolicy,
  EphemeralDisk: struct('EphemeralDisk', { Sticky: bool, Migrate: bool, SizeMB: int() }),
  Meta: stringMap,
  ...unmodelled('Affinities', 'Spreads', 'Volumes', 'Disconnect', 'Update', 'Migrate', 'Networks'),
  ...unmodelled('Services', 'ShutdownDelay', 'StopAfterClientDisconnect', 'MaxClientDisconnect'),
  ...unmodelled('Scaling', 'Consul', 'PreventRescheduleOnLost', 'MaxRunDuration'),
});

export const jobType = struct('Job', {
  Region: str,
  Namespace: str,
  ID: str,
  Name: str,
  Type: str,
  Priority: int(),
  AllAtOnce: bool,
  Datacenters: strings,
  NodePool: str,
  Constraints: constraints,
  TaskGroups: list(taskGroup, '[]*api.TaskGroup'),
  Reschedule: reschedulePolicy,
  Meta: stringMap,
  Stop: bool,
  ParentID: str,
  Version: int('uint64', true),
  ...unmodelled('Affinities', 'Update', 'Multiregion', 'Spreads', 'Periodic', 'ParameterizedJob'),
  ...unmodelled('Migrate', 'ConsulNamespace', 'VaultNamespace', 'NomadTokenID', 'Payload', 'UI'),
  ...unmodelled('VersionTag', 'Dispatched', 'DispatchIdempotencyToken', 'Status', 'StatusDescription'),
  ...unmodelled('Stable', 'SubmitTime', 'CreateIndex', 'ModifyIndex', 'JobModifyIndex'),
});

/** api.JobRegisterRequest: the job plus the embedded WriteRequest and register options. */
export const registerRequestType = struct('JobRegisterRequest', {
  Job: jobType,
  EnforceIndex: bool,
  JobModifyIndex: int('uint64', true),
  PolicyOverride: bool,
  PreserveCounts: bool,
  PreserveResources: bool,
  EvalPriority: int(),
  Region: str,
  Namespace: str,
  SecretID: str,
  ...unmodelled('Submission', 'IdempotencyToken'),
});

/** Decodes `value` as `type`; throws a DecodeError carrying Go's message. */
export function decodeGo(value: unknown, type: GoType): unknown {
  if (type.kind === 'struct' && !isObject(value) && value !== null) {
    throw new DecodeError(`json: cannot unmarshal ${kindOf(value, type)} into Go value of type ${type.go}`);
  }
  return decode(value, type, [], type.kind === 'struct' ? type.name : '');
}

function decode(value: unknown, type: GoType, path: string[], owner: string): unknown {
  if (value === null || type.kind === 'any') return value;
  const fail = (): never => {
    const go = type.kind === 'string' ? 'string' : type.kind === 'bool' ? 'bool' : type.go;
    throw new DecodeError(
      `json: cannot unmarshal ${kindOf(value, type)} into Go struct field ${owner}.${path.join('.')} of type ${go}`,
    );
  };
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' ? value : fail();
    case 'bool':
      return typeof value === 'boolean' ? value : fail();
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return fail();
      return type.unsigned === true && value < 0 ? fail() : value;
    case 'list':
      if (!Array.isArray(value)) return fail();
      return value.map((item: unknown) => decode(item, type.of, path, owner));
    case 'map':
      if (!isObject(value)) return fail();
      return Object.fromEntries(
        Object.entries(value).map(([key, item]) => [key, decode(item, type.of, path, owner)]),
      );
    case 'struct': {
      if (!isObject(value)) return fail();
      const out: Record<string, unknown> = {};
      const names = Object.keys(type.fields);
      for (const [key, item] of Object.entries(value)) {
        const field =
          names.find((name) => name === key) ?? names.find((n) => n.toLowerCase() === key.toLowerCase());
        const fieldType = field === undefined ? undefined : type.fields[field];
        if (field === undefined || fieldType === undefined) continue; // Go drops unknown fields
        out[field] = decode(item, fieldType, [...path, field], type.name);
      }
      return out;
    }
  }
}

function kindOf(value: unknown, type: GoType): string {
  if (typeof value === 'number')
    return type.kind === 'int' && !Number.isInteger(value) ? `number ${value}` : 'number';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  return Array.isArray(value) ? 'array' : 'object';
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
