import type { ExecStep } from '../core/engine.js';

/**
 * The variables that say how the stage is going, as a step sees them when it starts. They are
 * compiled as `success`; once a counted step failed, the steps that still run (`when: status:
 * failure` notifications, mostly) see `DRONE_BUILD_STATUS=failure`, `DRONE_STAGE_STATUS=failure` and
 * the failed steps' names in `DRONE_FAILED_STEPS`, as Drone's runners set them. Each also under its
 * `SVC_` name, and `CI_BUILD_STATUS` for Drone 0.8 scripts.
 */
export const STATUS_VARIABLES = ['DRONE_BUILD_STATUS', 'DRONE_STAGE_STATUS', 'DRONE_FAILED_STEPS'] as const;

/** The step with its status variables for a stage in which `failed` steps failed (unchanged when none did). */
export function withStageStatus(step: ExecStep, failed: readonly string[]): ExecStep {
  if (failed.length === 0) return step;
  const values: Record<(typeof STATUS_VARIABLES)[number], string> = {
    DRONE_BUILD_STATUS: 'failure',
    DRONE_STAGE_STATUS: 'failure',
    DRONE_FAILED_STEPS: failed.join(','),
  };
  const envs = { ...step.envs };
  for (const [name, value] of Object.entries(values)) {
    envs[name] = value;
    envs[`SVC_${name.slice('DRONE_'.length)}`] = value;
  }
  envs.CI_BUILD_STATUS = values.DRONE_BUILD_STATUS;
  return { ...step, envs };
}
