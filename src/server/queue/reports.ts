import type { Stage } from '../../core/stage.js';
import type { Status } from '../../core/status.js';
import type { NewStep, Step } from '../../core/step.js';

/** Longest error message kept on a stage or step; the rest of a long message is cut. */
export const MAX_ERROR = 2000;

/** A step as a runner reports it (times in epoch milliseconds; id 0 for a step not created yet). */
export interface StepReport {
  id: number;
  number: number;
  name: string;
  status: Status;
  error: string;
  errIgnore: boolean;
  exitCode: number;
  image: string;
  detached: boolean;
  dependsOn: string[];
  started: number;
  stopped: number;
  /** How many times it ran (svc runners say; 0 from others). */
  attempts: number;
  /** The version the runner last saw; 0 when it never saw the step. */
  version: number;
}

/** A stage as a runner reports it, with its steps. */
export interface StageReport {
  id: number;
  status: Status;
  error: string;
  exitCode: number;
  started: number;
  stopped: number;
  version: number;
  steps: StepReport[];
}

/** Cuts an error message to MAX_ERROR characters. */
export function clip(message: string): string {
  return message.length <= MAX_ERROR ? message : `${message.slice(0, MAX_ERROR - 1)}…`;
}

/** The fields of a step the runner decides once the step exists. */
export function stepOutcome(
  report: StepReport,
): Pick<Step, 'status' | 'error' | 'exitCode' | 'started' | 'stopped' | 'attempts'> {
  return {
    status: report.status,
    error: clip(report.error),
    exitCode: report.exitCode,
    started: report.started,
    stopped: report.stopped,
    attempts: report.attempts,
  };
}

/** A new step of `stageId` from a runner's report. */
export function newStep(stageId: number, report: StepReport): NewStep {
  return {
    stageId,
    number: report.number,
    name: report.name,
    errIgnore: report.errIgnore,
    image: report.image,
    detached: report.detached,
    dependsOn: report.dependsOn,
    ...stepOutcome(report),
  };
}

/** The stored step already says what the report says. */
export function stepMatches(stored: Step, report: StepReport): boolean {
  const wanted = stepOutcome(report);
  return (
    stored.status === wanted.status &&
    stored.error === wanted.error &&
    stored.exitCode === wanted.exitCode &&
    stored.started === wanted.started &&
    stored.stopped === wanted.stopped &&
    stored.attempts === wanted.attempts
  );
}

/**
 * The report repeats the update that made the stored version: a runner that retried a request
 * whose answer it never got. It is answered with what is stored instead of a conflict.
 */
export function isStageReplay(stored: Stage, report: StageReport): boolean {
  return (
    stored.version === report.version + 1 &&
    stored.status === report.status &&
    stored.error === clip(report.error) &&
    stored.exitCode === report.exitCode
  );
}

/** The same for a step. */
export function isStepReplay(stored: Step, report: StepReport): boolean {
  return stored.version === report.version + 1 && stepMatches(stored, report);
}
