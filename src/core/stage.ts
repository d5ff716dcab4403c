import type { StageDeployment } from './environment.js';
import type { Status } from './status.js';
import type { Step } from './step.js';

/** One pipeline of a build, executed by one runner. */
export interface Stage {
  readonly id: number;
  repoId: number;
  buildId: number;
  /** 1-based position in the build; unique per build. */
  number: number;
  name: string;
  /** Document kind (`pipeline`) and pipeline type (`docker`, `kubernetes`, `ssh`, `vm`, `exec`, …). */
  kind: string;
  type: string;
  status: Status;
  error: string;
  /** The failure of this stage does not fail the build. */
  errIgnore: boolean;
  exitCode: number;
  /** Name of the runner that took the stage; empty while queued. */
  machine: string;
  os: string;
  arch: string;
  variant: string;
  kernel: string;
  /** Concurrency limit of the pipeline (0 = none). */
  limit: number;
  /** Epoch milliseconds. `heartbeat` is the last sign of life from the runner running the stage. */
  started: number;
  stopped: number;
  heartbeat: number;
  created: number;
  updated: number;
  version: number;
  onSuccess: boolean;
  onFailure: boolean;
  /** Names of the stages of the same build that must finish first. */
  dependsOn: string[];
  /** Runner labels the stage requires (exact match). */
  labels: Record<string, string>;
  /** The environment the stage deploys to and its approvals; absent when it deploys nowhere. */
  deployment?: StageDeployment | undefined;
}

export type NewStage = Omit<Stage, 'id' | 'created' | 'updated' | 'version'>;

/** How a runner's final report ends a stage (StageStore.end). */
export interface StageEnd {
  status: Status;
  error: string;
  exitCode: number;
  /** The start the runner reports; 0 keeps the stored one, or `at` when the stage never started. */
  started: number;
  stopped: number;
  /** The time of the report: the stage's heartbeat (and its start when it has none). */
  at: number;
}

export interface StageWithSteps extends Stage {
  steps: Step[];
}

/**
 * Persistence of stages. Stages are created with their build (BuildStore.create).
 * - `update` is optimistic-locked: StaleVersionError when `stage.version` is not the stored version;
 *   this is how the first runner to accept a stage wins.
 * - `listStatus` returns every stage with the given status, oldest first.
 * - `end(id, version, end, holder?)` writes a runner's final report in one conditional write,
 *   without reading the stage first: only when the stored version is `version`, a runner took the
 *   stage (`machine` set; with `holder`, that runner) and it is not done; version + 1. Returns the stage as written, undefined
 *   when the condition does not hold (gone, stale, not taken, already done: the caller reads the
 *   stage to say which). Of concurrent ends of a version, one wins.
 */
export interface StageStore {
  find(id: number): Promise<Stage | undefined>;
  findNumber(buildId: number, number: number): Promise<Stage | undefined>;
  list(buildId: number): Promise<Stage[]>;
  listWithSteps(buildId: number): Promise<StageWithSteps[]>;
  listStatus(status: Status): Promise<Stage[]>;
  update(stage: Stage): Promise<Stage>;
  end(id: number, version: number, end: StageEnd, holder?: string): Promise<Stage | undefined>;
}
