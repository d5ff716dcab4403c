export const RUNNER_KINDS = ['docker', 'nomad', 'vm', 'kubernetes', 'ssh'] as const;
export type RunnerKind = (typeof RUNNER_KINDS)[number];

/** A runner as the server knows it: registered by name when it first polls. */
export interface Runner {
  readonly id: number;
  /** SVC_RUNNER_NAME (or the host name); unique. */
  name: string;
  kind: RunnerKind;
  /** The pipeline `type` it runs (`docker`, `kubernetes`, `ssh`, …), from its filter. */
  type: string;
  /** SVC_RUNNER_LABELS: routes pipelines to this runner. */
  labels: Record<string, string>;
  /** Concurrent pipelines (SVC_RUNNER_CAPACITY) and steps (SVC_RUNNER_MAX_PROCS; 0 = no limit). */
  capacity: number;
  maxProcs: number;
  os: string;
  arch: string;
  version: string;
  /** Epoch milliseconds of the last request from the runner. */
  lastSeen: number;
  created: number;
  updated: number;
}

export type RunnerRegistration = Omit<Runner, 'id' | 'created' | 'updated'>;

/**
 * Persistence of runners.
 * - `register` creates the runner or updates the one of the same name, and returns it.
 */
export interface RunnerStore {
  find(id: number): Promise<Runner | undefined>;
  findName(name: string): Promise<Runner | undefined>;
  list(): Promise<Runner[]>;
  register(runner: RunnerRegistration): Promise<Runner>;
  touch(id: number, lastSeen: number): Promise<void>;
  delete(id: number): Promise<void>;
}
