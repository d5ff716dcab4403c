import { toSeconds, type WireStage, type WireStep } from '../client/wire/index.js';
import type { StageResult } from '../reporter.js';

export /**
 * The stage's final report: the executor's outcome with the steps as the server stored them — an
 * error, whatever the steps did, when a step's log could not be stored (`unstored` says which).
 */
function finalReport(
  running: WireStage,
  steps: WireStep[],
  result: StageResult,
  unstored: readonly string[],
): WireStage {
  const failed = result.steps.find(
    (step) => step.status !== 'success' && step.status !== 'skipped' && !step.errIgnore,
  );
  const logsLost = unstored.length > 0 && result.status !== 'killed';
  return {
    ...running,
    status: logsLost ? 'error' : result.status,
    error: logsLost ? [result.error, ...unstored].filter((e) => e !== '').join('; ') : result.error,
    exit_code: failed?.exitCode ?? 0,
    started: toSeconds(result.started),
    stopped: toSeconds(result.stopped),
    steps,
  };
}
