import { z } from 'zod';

/*
 * The parts of Nomad's HTTP API answers the nomad runner reads (https://developer.hashicorp.com/nomad/api-docs:
 * jobs, allocations, evaluations), PascalCase as Nomad writes them. Fields Nomad may send as null
 * (empty maps and lists of its Go structs) are read as empty.
 */

const stringMap = z
  .record(z.string(), z.string())
  .nullish()
  .transform((v) => v ?? {});
const countMap = z
  .record(z.string(), z.number())
  .nullish()
  .transform((v) => v ?? {});

export const taskEvent = z.object({
  Type: z.string(),
  Time: z.number().optional(),
  DisplayMessage: z.string().optional(),
  Details: stringMap,
  ExitCode: z.number().optional(),
  Signal: z.number().optional(),
  DriverError: z.string().optional(),
  SetupError: z.string().optional(),
  KillReason: z.string().optional(),
  Message: z.string().optional(),
});
export type NomadTaskEvent = z.output<typeof taskEvent>;

export const taskState = z.object({
  State: z.string(),
  Failed: z.boolean().optional(),
  Restarts: z.number().optional(),
  StartedAt: z.string().nullish(),
  FinishedAt: z.string().nullish(),
  Events: z
    .array(taskEvent)
    .nullish()
    .transform((v) => v ?? []),
});
export type NomadTaskState = z.output<typeof taskState>;

export const allocation = z.object({
  ID: z.string(),
  JobID: z.string(),
  NodeID: z.string().optional(),
  NodeName: z.string().optional(),
  TaskGroup: z.string().optional(),
  DesiredStatus: z.string(),
  DesiredDescription: z.string().optional(),
  ClientStatus: z.string(),
  ClientDescription: z.string().optional(),
  TaskStates: z
    .record(z.string(), taskState)
    .nullish()
    .transform((v) => v ?? {}),
  CreateIndex: z.number().optional(),
  ModifyIndex: z.number().optional(),
});
export type NomadAllocation = z.output<typeof allocation>;

/** Why an evaluation could not place a task group (Nomad's AllocMetric). */
export const allocMetric = z.object({
  NodesEvaluated: z.number().optional(),
  NodesFiltered: z.number().optional(),
  NodesAvailable: countMap,
  ClassFiltered: countMap,
  ConstraintFiltered: countMap,
  NodesExhausted: z.number().optional(),
  ClassExhausted: countMap,
  DimensionExhausted: countMap,
  QuotaExhausted: z
    .array(z.string())
    .nullish()
    .transform((v) => v ?? []),
});
export type NomadAllocMetric = z.output<typeof allocMetric>;

export const evaluation = z.object({
  ID: z.string(),
  Status: z.string(),
  StatusDescription: z.string().optional(),
  TriggeredBy: z.string().optional(),
  FailedTGAllocs: z
    .record(z.string(), allocMetric)
    .nullish()
    .transform((v) => v ?? {}),
  CreateIndex: z.number().optional(),
});
export type NomadEvaluation = z.output<typeof evaluation>;

export const jobStub = z.object({
  ID: z.string(),
  Name: z.string().optional(),
  Namespace: z.string().optional(),
  Status: z.string().optional(),
  Stop: z.boolean().optional(),
  Meta: stringMap,
});
export type NomadJobStub = z.output<typeof jobStub>;

export const registerResponse = z.object({
  EvalID: z.string().optional(),
  Warnings: z.string().optional(),
});

/** A task's end: dead, and whether it failed (Nomad's task states are pending, running, dead). */
export function isTerminalAllocation(alloc: NomadAllocation): boolean {
  return ['complete', 'failed', 'lost'].includes(alloc.ClientStatus);
}
