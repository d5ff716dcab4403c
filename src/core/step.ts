import type { Status } from './status.js';

/** One step of a stage. */
export interface Step {
  readonly id: number;
  stageId: number;
  /** 1-based position in the stage; unique per stage. */
  number: number;
  name: string;
  status: Status;
  error: string;
  errIgnore: boolean;
  exitCode: number;
  image: string;
  detached: boolean;
  dependsOn: string[];
  /** Epoch milliseconds; 0 when not yet. */
  started: number;
  stopped: number;
  /**
   * How many times the step ran: 1, or more after its `retry:`; 0 before it starts, and for steps
   * of runners that do not say (Drone's).
   */
  attempts: number;
  version: number;
}

/** A step to store; `attempts` is 0 unless given. */
export interface NewStep extends Omit<Step, 'id' | 'version' | 'attempts'> {
  attempts?: number;
}

/**
 * Persistence of steps.
 * - `create` throws ConflictError when the stage already has a step with that number.
 * - `update` is optimistic-locked: StaleVersionError when `step.version` is not the stored version.
 */
export interface StepStore {
  find(id: number): Promise<Step | undefined>;
  findNumber(stageId: number, number: number): Promise<Step | undefined>;
  list(stageId: number): Promise<Step[]>;
  create(step: NewStep): Promise<Step>;
  update(step: Step): Promise<Step>;
}
