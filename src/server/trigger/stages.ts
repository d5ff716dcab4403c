import type { NewStageWithSteps } from '../../core/build.js';
import type { StageDeployment } from '../../core/environment.js';
import type { Status } from '../../core/status.js';
import { statusRunPolicy } from '../../pipeline/index.js';
import type { SelectedPipeline } from './select.js';

/**
 * The stage records of a new build, one per selected pipeline, numbered in file order. A stage starts
 * `pending` (a runner may take it) or `waiting_on_dependencies`; all are `blocked` when the build
 * waits for approval. A stage that deploys to an environment waiting for approvals is `blocked` as
 * soon as it could run: at once without dependencies, else once they are done (transitions.ts).
 * Steps are not created here: the runner creates them after compiling the stage.
 */
export function stagesOf(
  selected: readonly SelectedPipeline[],
  blocked: boolean,
  deployments: readonly (StageDeployment | undefined)[] = [],
): NewStageWithSteps[] {
  return selected.map(({ pipeline, dependsOn }, index) => {
    const { onSuccess, onFailure } = runsAfter(pipeline.trigger.status);
    const deployment = deployments[index];
    const waits = deployment !== undefined && !deployment.approved;
    const status: Status =
      blocked || (waits && dependsOn.length === 0)
        ? 'blocked'
        : dependsOn.length > 0
          ? 'waiting_on_dependencies'
          : 'pending';
    return {
      stage: {
        number: index + 1,
        name: pipeline.name,
        kind: 'pipeline',
        type: pipeline.type,
        status,
        error: '',
        errIgnore: false,
        exitCode: 0,
        machine: '',
        // Drone's defaults: a pipeline that names no platform runs on linux/amd64.
        os: pipeline.platform.os !== '' ? pipeline.platform.os : 'linux',
        arch: pipeline.platform.arch !== '' ? pipeline.platform.arch : 'amd64',
        variant: pipeline.platform.variant,
        kernel: pipeline.platform.version,
        limit: pipeline.concurrency.limit,
        started: 0,
        stopped: 0,
        heartbeat: 0,
        onSuccess,
        onFailure,
        dependsOn,
        labels: { ...pipeline.node },
        ...(deployment === undefined ? {} : { deployment }),
      },
      steps: [],
    };
  });
}

/**
 * Drone's rule for `trigger.status`: without one, a stage runs only while its dependencies succeeded;
 * `[failure]` only after a failure; `[success, failure]` in both cases.
 */
function runsAfter(status: Parameters<typeof statusRunPolicy>[0]): {
  onSuccess: boolean;
  onFailure: boolean;
} {
  switch (statusRunPolicy(status)) {
    case 'on-success':
      return { onSuccess: true, onFailure: false };
    case 'on-failure':
      return { onSuccess: false, onFailure: true };
    case 'always':
      return { onSuccess: true, onFailure: true };
    case 'never':
      return { onSuccess: false, onFailure: false };
  }
}
