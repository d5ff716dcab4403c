import type { ExecRetry, StepExit } from '../core/engine.js';
import { isFailed } from '../core/status.js';
import { exitOutcome, type StepOutcome } from './outcome.js';

/** How one attempt of a step ended. */
export interface Attempt {
  outcome: StepOutcome;
  /** The container's exit; undefined when the engine failed the attempt or it was stopped. */
  exit: StepExit | undefined;
  /** The step's own timeout ended it. */
  timedOut: boolean;
}

/**
 * Why a failed attempt runs again under the step's `retry:` ("exit code 137", "the engine failed:
 * …"), or undefined when it does not: it succeeded, or its failure is not one `when` names. A
 * timed-out attempt runs again only under a bare `retry: N` (any failure).
 */
export function retryReason(retry: ExecRetry | undefined, attempt: Attempt): string | undefined {
  if (retry === undefined || !isFailed(attempt.outcome.status)) return undefined;
  const { exit, outcome } = attempt;
  if (attempt.timedOut) return retry.anyExit ? outcome.error : undefined;
  if (exit === undefined) return retry.infrastructure ? `the engine failed: ${outcome.error}` : undefined;
  if (exit.oomKilled) return retry.infrastructure ? 'killed for memory (OOM)' : undefined;
  const code = exit.exitCode;
  if (retry.anyExit || retry.exitCodes.includes(code)) return `exit code ${code}`;
  return undefined;
}

/** Whether an attempt that exited so runs again (its cache and artifacts wait for the last attempt). */
export function exitRetried(retry: ExecRetry | undefined, exit: StepExit): boolean {
  return retryReason(retry, { outcome: exitOutcome(exit), exit, timedOut: false }) !== undefined;
}
