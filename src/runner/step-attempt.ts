import { formatDuration } from '../config/values/duration.js';
import type { ExecStep, OutputSink, StepExit } from '../core/engine.js';
import { QuarantineVerdict } from './artifacts/quarantine-verdict.js';
import type { Masker } from './masker.js';
import { engineErrorOutcome, exitOutcome, killedOutcome, timedOutOutcome } from './outcome.js';
import type { Attempt } from './retry.js';
import type { StageRunOptions } from './stage-run.js';
import { withStageStatus } from './status-env.js';
import { stepAround } from './step-around.js';

/** What an attempt reads of its stage's run. */
export interface AttemptContext extends StageRunOptions {
  /** Aborted by a cancel or the stage's timeout. */
  stageSignal: AbortSignal;
  /** The steps that failed so far (DRONE_FAILED_STEPS). */
  failedSteps: readonly string[];
  /** Why the stage was stopped, once it was. */
  stopMessage: () => string | undefined;
  masker: Masker;
}

/**
 * One run of the step in the engine. Its signal is aborted by the stage's (cancel, stage timeout)
 * or by the step's own timeout, which counts for each attempt and fails the step. `retried` says,
 * once the step has exited, whether this attempt will be run again. A failed exit whose every
 * failure is of a quarantined test passes (QuarantineVerdict).
 */
export async function runAttempt(
  context: AttemptContext,
  run: {
    step: ExecStep;
    output: OutputSink;
    retried: (exit: StepExit) => boolean;
    attempt: number;
  },
): Promise<Attempt> {
  const { step, output, retried, attempt } = run;
  const control = new AbortController();
  const onStop = (): void => control.abort(context.stageSignal.reason);
  if (context.stageSignal.aborted) onStop();
  context.stageSignal.addEventListener('abort', onStop, { once: true });
  const timeout = `step timed out after ${formatDuration(step.timeout)} (its timeout)`;
  let timedOut = false;
  const timer =
    step.timeout > 0 && !step.detach
      ? setTimeout(() => {
          timedOut = true;
          control.abort(new Error(timeout));
        }, step.timeout)
      : undefined;
  const tests = new QuarantineVerdict(output);
  try {
    const exit = await context.engine.run(
      context.spec,
      withStageStatus(step, context.failedSteps),
      output,
      control.signal,
      stepAround(step, {
        ...context,
        output,
        signal: control.signal,
        retried,
        attempt,
        onTests: tests.told,
      }),
    );
    return { ...tests.judge(exitOutcome(exit), exit), timedOut: false };
  } catch (err) {
    if (timedOut) return { outcome: timedOutOutcome(timeout), exit: undefined, timedOut };
    const stop = context.stopMessage();
    if (stop !== undefined) return { outcome: killedOutcome(stop), exit: undefined, timedOut };
    return { outcome: engineErrorOutcome(context.masker(messageOf(err))), exit: undefined, timedOut };
  } finally {
    clearTimeout(timer);
    context.stageSignal.removeEventListener('abort', onStop);
  }
}

/** An error's message, or what was thrown as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
