import { toMillis, type WireStage, type WireStep } from '../../runner/client/wire/index.js';
import type { StageReport, StepReport } from '../queue/reports.js';

/** A step of a runner's request as the scheduler reads it. */
export function stepReport(step: WireStep): StepReport {
  return {
    id: step.id,
    number: step.number,
    name: step.name,
    status: step.status,
    error: step.error,
    errIgnore: step.errignore,
    exitCode: step.exit_code,
    image: step.image,
    detached: step.detached,
    dependsOn: step.depends_on,
    started: toMillis(step.started),
    stopped: toMillis(step.stopped),
    attempts: step.attempts ?? 0,
    version: step.version,
  };
}

/** A runner's stage update as the scheduler reads it; the stage is the one of the path. */
export function stageReport(id: number, stage: WireStage): StageReport {
  return {
    id,
    status: stage.status,
    error: stage.error,
    exitCode: stage.exit_code,
    started: toMillis(stage.started),
    stopped: toMillis(stage.stopped),
    version: stage.version,
    steps: stage.steps.map(stepReport),
  };
}
