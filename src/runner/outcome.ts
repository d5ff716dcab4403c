import type { RunPolicy, StepExit } from '../core/engine.js';
import type { Status } from '../core/status.js';
import type { StepResult } from './reporter.js';

/** A step that exits with this code succeeds and ends the stage early: the steps not yet started are skipped. */
export const EXIT_SKIP_REST = 78;
/** The exit code of a step that was killed (cancel, timeout), as a shell reports SIGKILL. */
export const EXIT_KILLED = 137;
/** The exit code of a step the engine failed to run (a missing image, a refused container). */
export const EXIT_ENGINE_ERROR = 255;

/** How a step ended, as far as its result goes. */
export type StepOutcome = Pick<StepResult, 'status' | 'exitCode' | 'oomKilled' | 'error'>;

/** What the stage so far means for the steps still to start. */
export interface StageSoFar {
  /** Set once the stage was cancelled, timed out or stopped by a `failure: fast` step: why. */
  stopMessage: string | undefined;
  /** The stop came from a failed `failure: fast` step: the stage failed rather than was killed. */
  stoppedByFailure: boolean;
  /** The step that exited 78, if one did. */
  exitedEarlyBy: string | undefined;
  /** A step failed that does not have `failure: ignore`. */
  failed: boolean;
}

/** Why a step must not start now — '' when its run policy simply rules it out — or undefined to run it. */
export function skipReason(policy: RunPolicy, stage: StageSoFar): string | undefined {
  if (stage.stopMessage !== undefined) return stage.stopMessage;
  if (stage.exitedEarlyBy !== undefined) {
    return `step "${stage.exitedEarlyBy}" exited ${EXIT_SKIP_REST}: the rest of the stage is skipped`;
  }
  switch (policy) {
    case 'always':
      return undefined;
    case 'never':
      return '';
    case 'on-success':
      return stage.failed ? '' : undefined;
    case 'on-failure':
      return stage.failed ? undefined : '';
  }
}

/** A step that exited: 0 and 78 succeed, anything else (or an OOM kill) fails. */
export function exitOutcome({ exitCode, oomKilled }: StepExit): StepOutcome {
  if (oomKilled) return { status: 'failure', exitCode, oomKilled, error: 'killed: out of memory' };
  const ok = exitCode === 0 || exitCode === EXIT_SKIP_REST;
  return { status: ok ? 'success' : 'failure', exitCode, oomKilled, error: '' };
}

/** A step stopped by a cancel or a timeout. */
export function killedOutcome(error: string): StepOutcome {
  return { status: 'killed', exitCode: EXIT_KILLED, oomKilled: false, error };
}

/** A step its own timeout ended: it failed (the stage goes on, unlike after a cancel). */
export function timedOutOutcome(error: string): StepOutcome {
  return { status: 'failure', exitCode: EXIT_KILLED, oomKilled: false, error };
}

/** A step the engine could not run. */
export function engineErrorOutcome(error: string): StepOutcome {
  return { status: 'error', exitCode: EXIT_ENGINE_ERROR, oomKilled: false, error };
}

/**
 * The stage's status: `error` for an invalid spec or failed setup, `killed` when cancelled or
 * timed out, `error` when a step the stage depends on hit an engine error, `failure` for any other
 * counted failure (a `failure: fast` step's included), else `success`.
 */
export function stageOutcome(
  stageError: string,
  stage: StageSoFar,
  steps: readonly StepResult[],
): { status: Status; error: string } {
  if (stageError !== '') return { status: 'error', error: stageError };
  if (stage.stopMessage !== undefined && !stage.stoppedByFailure) {
    return { status: 'killed', error: stage.stopMessage };
  }
  if (!stage.failed) return { status: 'success', error: '' };
  const errored = steps.find((r) => r.status === 'error' && !r.errIgnore);
  if (errored) return { status: 'error', error: `step "${errored.name}": ${errored.error}` };
  return { status: 'failure', error: '' };
}
