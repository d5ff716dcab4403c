import type { ExecStep } from '../core/engine.js';
import type { LogLine } from '../core/log.js';
import type { Status } from '../core/status.js';

/** How one step of a stage ended (or why it never ran). */
export interface StepResult {
  name: string;
  /** `success`, `failure`, `skipped`, `killed` or `error` once the stage is over. */
  status: Status;
  exitCode: number;
  oomKilled: boolean;
  /** Why the step failed, was killed or skipped; empty when there is nothing to say. Masked. */
  error: string;
  /** The step's `failure: ignore`: its failure did not fail the stage. */
  errIgnore: boolean;
  /** Epoch milliseconds; 0 when the step never started. */
  started: number;
  stopped: number;
  /** How many times the step ran: more than 1 after a `retry:`; 0 when it never started. */
  attempts: number;
}

/** How a stage ended. */
export interface StageResult {
  /** `success`, `failure`, `killed` (cancelled) or `error` (invalid spec, setup failure, timeout). */
  status: Status;
  /** Why the stage did not succeed; empty on success. Masked. */
  error: string;
  /** Epoch milliseconds. */
  started: number;
  stopped: number;
  /** Every step of the spec, in spec order. */
  steps: StepResult[];
  /** The step that exited 78 and so ended the stage early, if any. */
  exitedEarlyBy: string | undefined;
  /** Set when `Engine.destroy` failed: resources of the run may be left behind. */
  cleanupError: string;
  /** The first error a reporter call threw; the stage itself ran on regardless. */
  reportError: unknown;
}

/**
 * Observes one stage as it runs: the docker runner, `svc exec` and the server protocol each
 * implement it. Contract:
 * - `stepStarted` comes once per step that runs, before any of its lines.
 * - `stepLine` delivers the step's output in order, already masked, numbered from 0; it is
 *   synchronous so that a slow observer buffers instead of holding up the step.
 * - `stepRoom` (optional) paces a step that prints faster than its lines can be delivered: a
 *   promise while the step's lines should wait (see OutputSink.room), undefined when they may come.
 * - `stepFinished` comes exactly once per step of the spec, also for skipped steps, after the
 *   step's last line. Detached steps finish when the stage ends.
 * - `stageFinished` comes last, after the engine destroyed the run's resources.
 * The executor awaits the asynchronous methods; a method that throws does not stop the stage
 * (the first such error is returned as `StageResult.reportError`).
 */
export interface StageReporter {
  stepStarted(step: ExecStep, started: number): void | Promise<void>;
  stepLine(step: ExecStep, line: LogLine): void;
  stepRoom?(step: ExecStep): Promise<void> | undefined;
  stepFinished(step: ExecStep, result: StepResult): void | Promise<void>;
  stageFinished(result: StageResult): void | Promise<void>;
}

/** One reporter that forwards every event to each of `reporters`, in order. */
export function combineReporters(...reporters: StageReporter[]): StageReporter {
  return {
    async stepStarted(step, started) {
      for (const r of reporters) await r.stepStarted(step, started);
    },
    stepLine(step, line) {
      for (const r of reporters) r.stepLine(step, line);
    },
    stepRoom(step) {
      const waits = reporters.flatMap((r) => r.stepRoom?.(step) ?? []);
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
    },
    async stepFinished(step, result) {
      for (const r of reporters) await r.stepFinished(step, result);
    },
    async stageFinished(result) {
      for (const r of reporters) await r.stageFinished(result);
    },
  };
}
