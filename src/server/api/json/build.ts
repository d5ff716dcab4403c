import type { Build } from '../../../core/build.js';
import type { Stage, StageWithSteps } from '../../../core/stage.js';
import type { Step } from '../../../core/step.js';
import { buildToWire, stageToWire, stepToWire } from '../../../runner/client/wire/convert.js';

/**
 * A build as Drone's API shows it (snake_case, times in epoch seconds): the shape of the runner
 * protocol, whose converters both use. The pipeline file (`config`) is not part of it, as in Drone.
 * `stages` is present when given (single-build answers), absent in lists.
 */
export function buildJson(
  build: Build,
  stages?: readonly (Stage | StageWithSteps)[],
): Record<string, unknown> {
  return { ...buildToWire(build), ...(stages === undefined ? {} : { stages: stages.map(stageJson) }) };
}

/** A stage as Drone's API shows it, with its steps when they were loaded. */
export function stageJson(stage: Stage | StageWithSteps): Record<string, unknown> {
  const loaded = 'steps' in stage;
  const { steps: _steps, ...wire } = stageToWire(stage, loaded ? stage.steps : []);
  const rest = { ...wire, ...deploymentJson(stage) };
  return loaded ? { ...rest, steps: stage.steps.map(stepJson) } : rest;
}

/** svc's addition: the environment a stage deploys to and its approvals (issue 35). */
function deploymentJson({ deployment }: Stage): Record<string, unknown> {
  if (deployment === undefined) return {};
  return {
    deployment: {
      environment: deployment.environment,
      approvals_required: deployment.required,
      approved: deployment.approved,
      deadline: Math.floor(deployment.deadline / 1000),
    },
  };
}

/**
 * A step as Drone's API shows it. Drone names the stage reference `step_id`; svc adds the clearer
 * `stage_id` with the same value.
 */
export function stepJson(step: Step): Record<string, unknown> {
  return { ...stepToWire(step), stage_id: step.stageId };
}
