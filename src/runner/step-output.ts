import type { ExecStep, OutputSink } from '../core/engine.js';
import type { Masker } from './masker.js';
import type { StageReporter } from './reporter.js';

/** What a step's output needs from its stage run. */
export interface StepOutputDeps {
  masker: Masker;
  reporter: StageReporter;
  now: () => number;
  /** A reporter that throws is noted, not fatal: the step runs on. */
  noteError: (err: unknown) => void;
}

/**
 * Masks, numbers and times each line of a step before it reaches the reporter; the reporter paces
 * the step (OutputSink.room) while it is open. Lines after `isOpen` turns false are dropped.
 */
export function stepOutput(
  step: ExecStep,
  started: number,
  isOpen: () => boolean,
  deps: StepOutputDeps,
): OutputSink {
  let pos = 0;
  const sink = (line: string): void => {
    if (!isOpen()) return;
    const out = deps.masker(line);
    const time = Math.max(0, Math.floor((deps.now() - started) / 1000));
    try {
      deps.reporter.stepLine(step, { pos: pos++, out, time });
    } catch (err) {
      deps.noteError(err);
    }
  };
  const reporter = deps.reporter;
  if (reporter.stepRoom === undefined) return sink;
  return Object.assign(sink, {
    room: () => (isOpen() ? reporter.stepRoom?.(step) : undefined),
  });
}
