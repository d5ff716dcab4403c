import type { OutputSink, StepExit } from '../../core/engine.js';
import type { StepOutcome } from '../outcome.js';
import { failuresAllQuarantined } from './test-lines.js';
import type { TestReceipt } from './transport.js';

/**
 * Whether one attempt of a step passes because of its test reports (docs/test-reports.md): `told`
 * receives what the server read of them, `judge` turns a failed exit whose every failure is of a
 * quarantined test into a success — the exit code stays in the outcome, for the record.
 */
export class QuarantineVerdict {
  #tests: TestReceipt | undefined;

  constructor(private readonly output: OutputSink) {}

  readonly told = (tests: TestReceipt): void => {
    this.#tests = tests;
  };

  judge(outcome: StepOutcome, exit: StepExit): { outcome: StepOutcome; exit: StepExit } {
    if (outcome.status !== 'failure' || exit.oomKilled || !failuresAllQuarantined(this.#tests))
      return { outcome, exit };
    this.output(
      `tests: every failure is of a quarantined test: the step passes (it exited ${exit.exitCode})`,
    );
    // The retry rules read the exit: a step that passes is not run again.
    return { outcome: { ...outcome, status: 'success' }, exit: { ...exit, exitCode: 0 } };
  }
}
