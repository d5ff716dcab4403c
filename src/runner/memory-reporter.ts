import type { ExecStep } from '../core/engine.js';
import type { LogLine } from '../core/log.js';
import type { StageReporter, StageResult, StepResult } from './reporter.js';

/** One observed event, in the order the executor emitted them. */
export type ReportedEvent =
  | { type: 'started'; step: string; at: number }
  | { type: 'line'; step: string; line: LogLine }
  | { type: 'finished'; step: string; result: StepResult }
  | { type: 'stage'; result: StageResult };

/** A reporter that keeps every event in memory: for tests and for printing a stage afterwards. */
export class MemoryReporter implements StageReporter {
  readonly events: ReportedEvent[] = [];

  stepStarted(step: ExecStep, started: number): void {
    this.events.push({ type: 'started', step: step.name, at: started });
  }

  stepLine(step: ExecStep, line: LogLine): void {
    this.events.push({ type: 'line', step: step.name, line });
  }

  stepFinished(step: ExecStep, result: StepResult): void {
    this.events.push({ type: 'finished', step: step.name, result });
  }

  stageFinished(result: StageResult): void {
    this.events.push({ type: 'stage', result });
  }

  /** The output lines of one step, as text. */
  lines(step: string): string[] {
    return this.logLines(step).map((l) => l.out);
  }

  /** The output lines of one step, with their numbers and times. */
  logLines(step: string): LogLine[] {
    return this.events.flatMap((e) => (e.type === 'line' && e.step === step ? [e.line] : []));
  }

  /** Every output line of the stage, as text. */
  allLines(): string[] {
    return this.events.flatMap((e) => (e.type === 'line' ? [e.line.out] : []));
  }
}
