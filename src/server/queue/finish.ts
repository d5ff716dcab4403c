import type { Logger } from 'pino';
import { StaleVersionError } from '../../core/errors.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Stage, StageEnd, StageWithSteps } from '../../core/stage.js';
import { isDone, type Status } from '../../core/status.js';
import type { Step } from '../../core/step.js';
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

/** The write of a runner's final report on a stage (StageStore.end), at `now`. */
export function stageEnd(report: StageReport, now: number): StageEnd {
  return {
    status: report.status,
    error: clip(report.error),
    exitCode: report.exitCode,
    started: report.started,
    stopped: report.stopped || now,
    at: now,
  };
}

/**
 * Brings the steps of a stage just ended with the runner's final report (`stage`, as written by
 * StageStore.end, optimistic-locked on the version the runner saw: that is the gate, and it also
 * covers the steps) to what the report says, created when the runner reports a step the server
 * never saw. Steps the report leaves unfinished are closed (closeSteps). Returns the stage and its
 * steps as they now are.
 */
export async function finishSteps(
  deps: FinishDeps,
  stage: Stage,
  report: StageReport,
): Promise<StageWithSteps> {
  const steps = await deps.store.steps.list(stage.id);
  // The steps as written here; undefined once a write lost to another one (then they are read again).
  let current: Step[] | undefined = [...steps];
  const replace = (step: Step): void => {
    if (current === undefined) return;
    const i = current.findIndex((s) => s.id === step.id);
    if (i >= 0) current[i] = step;
    else current.push(step);
  };
  for (const step of report.steps) {
    const target = steps.find((s) => s.id === step.id) ?? steps.find((s) => s.number === step.number);
    if (target === undefined) replace(await deps.store.steps.create(newStep(stage.id, step)));
    else if (!stepMatches(target, step)) {
      const written = await writeStep(deps, target.id, step);
      if (written === undefined) current = undefined;
      else replace(written);
    }
  }
  const closed = await closeSteps(
    deps,
    stage.id,
    report.status === 'killed' ? 'killed' : 'error',
    ENDED,
    current,
  );
  return { ...stage, steps: closed };
}

/**
 * Writes a reported step over what is stored, re-reading when someone wrote in between; returns
 * the step as written, undefined when it was left as someone else wrote it.
 */
async function writeStep(deps: FinishDeps, stepId: number, report: StepReport): Promise<Step | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await deps.store.steps.find(stepId);
    if (stored === undefined || stepMatches(stored, report)) return undefined;
    try {
      return await deps.store.steps.update({ ...stored, ...stepOutcome(report) });
    } catch (error) {
      if (!(error instanceof StaleVersionError)) throw error;
    }
  }
  deps.logger.warn({ step: stepId }, 'step kept changing while its stage ended; left as it is');
  return undefined;
}

/**
 * Closes what a stage that ended left open: pending steps become `skipped`, running ones
 * `runningStatus` with `message`; a step whose log never arrived whole keeps the lines its batches
 * hold as its final log. Live watchers of those steps hear the end. `known` is the stage's steps
 * as the caller just wrote them (read here when not given). Returns the steps as they now are,
 * in order.
 */
export async function closeSteps(
  deps: FinishDeps,
  stageId: number,
  runningStatus: Status,
  message: string,
  known?: Step[],
): Promise<Step[]> {
  const now = deps.now();
  const steps = known ?? (await deps.store.steps.list(stageId));
  let stale = false;
  const result: Step[] = [];
  for (const step of steps) {
    let current = step;
    if (!isDone(step.status)) {
      const closed =
        step.status === 'running'
          ? { ...step, status: runningStatus, error: clip(message), stopped: now }
          : { ...step, status: 'skipped' as const, stopped: now };
      try {
        current = await deps.store.steps.update(closed);
      } catch (error) {
        if (!(error instanceof StaleVersionError)) throw error;
        stale = true;
        deps.logger.warn({ step: step.id }, 'step changed while its stage was closed; left as it is');
      }
    }
    result.push(current);
    const batched = await deps.store.logBatches.list(step.id);
    if (batched.length === 0) continue;
    if ((await deps.store.logs.find(step.id)) === undefined) await deps.store.logs.create(step.id, batched);
    await deps.store.logBatches.delete(step.id);
    deps.liveLogs.end(step.id);
  }
  if (stale) return deps.store.steps.list(stageId);
  return result.sort((a, b) => a.number - b.number);
}
