import type { ExecStep } from '../../core/engine.js';
import type { LogLine } from '../../core/log.js';
import type { Status } from '../../core/status.js';
import type { StageReporter, StageResult, StepResult } from '../../runner/index.js';

/** Where the reporter writes, and whether it may use colour (a terminal). */
export interface TerminalOptions {
  write(text: string): void;
  color: boolean;
}

const MARKS: Partial<Record<Status, string>> = {
  success: '✓',
  failure: '✗',
  error: '✗',
  killed: '✗',
  skipped: '-',
};

const COLORS: Partial<Record<Status, number>> = {
  success: 32,
  failure: 31,
  error: 31,
  killed: 31,
  skipped: 90,
};

/**
 * `svc exec`'s view of a stage: every output line as it comes, prefixed with its step's name (so
 * parallel steps stay readable), a line when a step starts and ends, and a summary with durations.
 */
export class TerminalReporter implements StageReporter {
  private readonly width: number;

  constructor(
    private readonly out: TerminalOptions,
    stepNames: readonly string[],
  ) {
    this.width = Math.max(4, ...stepNames.map((name) => name.length));
  }

  stepStarted(step: ExecStep): void {
    this.out.write(`${this.paint(36, `▶ ${step.name}`)}${step.detach ? ' (detached)' : ''}\n`);
  }

  stepLine(step: ExecStep, line: LogLine): void {
    this.out.write(`${this.paint(90, `${step.name.padEnd(this.width)} │`)} ${line.out}\n`);
  }

  stepFinished(step: ExecStep, result: StepResult): void {
    if (result.started === 0) return; // never ran: the summary says so
    this.out.write(`${this.mark(result.status)} ${step.name} ${describe(result)}\n`);
  }

  stageFinished(result: StageResult): void {
    const lines = ['', 'Summary'];
    for (const step of result.steps) {
      const duration = step.started === 0 ? '' : seconds(step.stopped - step.started);
      lines.push(
        `  ${this.mark(step.status)} ${step.name.padEnd(this.width)}  ${step.status.padEnd(8)} ${duration.padStart(7)}  ${notes(step)}`.trimEnd(),
      );
    }
    if (result.exitedEarlyBy) lines.push(`  step ${result.exitedEarlyBy} exited 78: the rest was skipped`);
    if (result.error) lines.push(`  ${result.error}`);
    if (result.cleanupError)
      lines.push(`  cleanup failed, resources may be left behind: ${result.cleanupError}`);
    lines.push(
      `${this.mark(result.status)} pipeline ${result.status} in ${seconds(result.stopped - result.started)}`,
      '',
    );
    this.out.write(lines.join('\n'));
  }

  private mark(status: Status): string {
    return this.paint(COLORS[status] ?? 0, MARKS[status] ?? '•');
  }

  private paint(color: number, text: string): string {
    return this.out.color && color !== 0 ? `\u001b[${color}m${text}\u001b[0m` : text;
  }
}

function describe(result: StepResult): string {
  const parts = [result.status, `in ${seconds(result.stopped - result.started)}`];
  const extra = notes(result);
  return extra === '' ? parts.join(' ') : `${parts.join(' ')} (${extra})`;
}

function notes(step: StepResult): string {
  const parts: string[] = [];
  if (step.status !== 'success' && step.status !== 'skipped' && step.exitCode !== 0)
    parts.push(`exit code ${step.exitCode}`);
  if (step.oomKilled) parts.push('out of memory');
  if (step.errIgnore && step.status === 'failure') parts.push('failure ignored');
  if (step.error) parts.push(step.error);
  return parts.join('; ');
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}
