import type { NewStageWithSteps } from '../../core/build.js';
import type { Stage } from '../../core/stage.js';
import type { Step } from '../../core/step.js';
import { dependentChanges } from '../queue/transitions.js';

/** A stage of an earlier build, with its steps: a rerun of its failed stages may reuse its result. */
export interface EarlierStage {
  stage: Stage;
  steps: Step[];
}

/**
 * The stages of a rerun that reruns only what did not succeed (`POST …/builds/{n}?failed=true`): a
 * new stage named like a stage that succeeded in the earlier build is created as that success, with
 * the earlier steps' results, and never queued; then the stages waiting on dependencies that are now
 * all done move on by the queue's own rules (queued, or skipped). When nothing would be left to run,
 * nothing is reused: the caller asked for a build that runs.
 */
export function reuseStages(
  created: readonly NewStageWithSteps[],
  earlier: readonly EarlierStage[],
): NewStageWithSteps[] {
  const succeeded = new Map(
    earlier.filter(({ stage }) => stage.status === 'success').map((entry) => [entry.stage.name, entry]),
  );
  if (created.every(({ stage }) => succeeded.has(stage.name))) return [...created];
  const stages = created.map((entry): NewStageWithSteps => {
    const previous = succeeded.get(entry.stage.name);
    if (previous === undefined) return { stage: { ...entry.stage }, steps: [...entry.steps] };
    const { stage } = previous;
    return {
      stage: {
        ...entry.stage,
        status: 'success',
        exitCode: 0,
        machine: stage.machine,
        started: stage.started,
        stopped: stage.stopped,
      },
      steps: previous.steps.map(({ id: _id, stageId: _stageId, version: _version, ...step }) => step),
    };
  });
  for (let changes = dependentChanges(stages.map((entry) => entry.stage)); changes.length > 0;) {
    for (const change of changes) change.stage.status = change.status;
    changes = dependentChanges(stages.map((entry) => entry.stage));
  }
  return stages;
}
