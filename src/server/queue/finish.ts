import type { Logger } from 'pino';
import { StaleVersionError } from '../../core/errors.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Stage } from '../../core/stage.js';
import { isDone, type Status } from '../../core/status.js';
import type { Store } from '../../core/store.js';
import { clip, newStep, stepMatches, stepOutcome, type StageReport, type StepReport } from './reports.js';

/** What a step still running when its stage ended is told. */
export const ENDED = 'the stage ended while the step was running';

/** What ending a stage touches. */
export interface FinishDeps {
  store: Pick<Store, 'stages' | 'steps' | 'logs' | 'logBatches'>;
  liveLogs: LiveLogs;
  logger: Logger;
  now: () => number;
}

/**
 * Ends a stage with the runner's final report. The stage is written first, optimistic-locked on the
 * version the runner saw: that is the gate, and it also covers the stage's steps, which are then
 * brought to what the report says (created when the runner reports a step the server never saw).
 * Steps the report leaves unfinished are closed (closeSteps).
 */
export async function finishStage(deps: FinishDeps, stored: Stage, report: StageReport): Promise<Stage> {
  const now = deps.now();
  const stage = await deps.store.stages.update({
    ...stored,
    status: report.status,
    error: clip(report.error),
    exitCode: report.exitCode,
    started: report.started || stored.started || now,
    stopped: report.stopped || now,
    heartbeat: now,
  });
  const steps = await deps.store.steps.list(stage.id);
  for (const step of report.steps) {
    const target = steps.find((s) => s.id === step.id) ?? steps.find((s) => s.number === step.number);
    if (target === undefined) await deps.store.steps.create(newStep(stage.id, step));
    else if (!stepMatches(target, step)) await writeStep(deps, target.id, step);
  }
  await closeSteps(deps, stage.id, report.status === 'killed' ? 'killed' : 'error', ENDED);
  return stage;
}

/** Writes a reported step over what is stored, re-reading when someone wrote in between. */
async function writeStep(deps: FinishDeps, stepId: number, report: StepReport): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await deps.store.steps.find(stepId);
    if (stored === undefined || stepMatches(stored, report)) return;
    try {
      await deps.store.steps.update({ ...stored, ...stepOutcome(report) });
      return;
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
    }
  }
  deps.logger.warn({ step: stepId }, 'step kept changing while its stage ended; left as it is');
}

/**
 * Closes what a stage that ended left open: pending steps become `skipped`, running ones
 * `runningStatus` with `message`; a step whose log never arrived whole keeps the lines its batches
 * hold as its final log. Live watchers of those steps hear the end.
 */
export async function closeSteps(
  deps: FinishDeps,
  stageId: number,
  runningStatus: Status,
  message: string,
): Promise<void> {
  const now = deps.now();
  for (const step of await deps.store.steps.list(stageId)) {
    if (!isDone(step.status)) {
      const closed =
        step.status === 'running'
          ? { ...step, status: runningStatus, error: clip(message), stopped: now }
          : { ...step, status: 'skipped' as const, stopped: now };
      try {
        await deps.store.steps.update(closed);
      } catch (error) {
        if (!(error instanceof StaleVersionError)) throw error;
        deps.logger.warn({ step: step.id }, 'step changed while its stage was closed; left as it is');
      }
    }
    const batched = await deps.store.logBatches.list(step.id);
    if (batched.length === 0) continue;
    if ((await deps.store.logs.find(step.id)) === undefined) await deps.store.logs.create(step.id, batched);
    await deps.store.logBatches.delete(step.id);
    deps.liveLogs.end(step.id);
  }
}
