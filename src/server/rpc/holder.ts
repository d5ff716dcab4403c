import type { FastifyRequest } from 'fastify';
import { ConflictError } from '../../core/errors.js';
import type { Stage, StageStore } from '../../core/stage.js';
import type { StepStore } from '../../core/step.js';

/** The header in which svc's runners name themselves on every request (their `machine`). */
export const RUNNER_HEADER = 'x-svc-runner';

/** The runner the request names itself as; undefined when it names none (Drone's runners). */
export function runnerOf(request: FastifyRequest): string | undefined {
  const value = request.headers[RUNNER_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * ConflictError (409: the runner stops the stage) unless `runner` holds the stage. Every runner
 * holds the one shared SVC_RPC_SECRET, so the name is the runner's word, not a credential: this keeps
 * a runner from reading the secrets of, or writing to, a stage another runner holds by mistake (a
 * stage it lost, a stale id); requests that name no runner (Drone's runners) are not checked.
 */
export function checkHolder(runner: string | undefined, stage: Pick<Stage, 'id' | 'machine'>): void {
  if (runner === undefined || stage.machine === runner) return;
  throw new ConflictError(
    stage.machine === ''
      ? `stage ${stage.id} is not taken by runner "${runner}": accept it first`
      : `stage ${stage.id} is held by runner "${stage.machine}", not "${runner}"`,
  );
}

/** The holder checks of routes that name a stage or a step; nothing is read for unnamed runners. */
export class HolderChecks {
  readonly #store: { stages: Pick<StageStore, 'find'>; steps: Pick<StepStore, 'find'> };

  constructor(store: { stages: Pick<StageStore, 'find'>; steps: Pick<StepStore, 'find'> }) {
    this.#store = store;
  }

  /** Checks that the request's runner holds stage `stageId` (an unknown stage is left to the route). */
  async stage(request: FastifyRequest, stageId: number): Promise<void> {
    const runner = runnerOf(request);
    if (runner === undefined) return;
    const stage = await this.#store.stages.find(stageId);
    if (stage !== undefined) checkHolder(runner, stage);
  }

  /** Checks that the request's runner holds the stage of step `stepId`. */
  async step(request: FastifyRequest, stepId: number): Promise<void> {
    if (runnerOf(request) === undefined) return;
    const step = await this.#store.steps.find(stepId);
    if (step !== undefined) await this.stage(request, step.stageId);
  }
}
