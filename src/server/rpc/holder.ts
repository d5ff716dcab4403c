import type { FastifyRequest } from 'fastify';
import type { StageStore } from '../../core/stage.js';
import { checkHolder } from '../queue/holder-check.js';

/** The header in which svc's runners name themselves on every request (their `machine`). */
export const RUNNER_HEADER = 'x-svc-runner';

/** The runner the request names itself as; undefined when it names none (Drone's runners). */
export function runnerOf(request: FastifyRequest): string | undefined {
  const value = request.headers[RUNNER_HEADER];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The holder check of a route that names a stage and reads nothing else of it (stage and step
 * reports check it on the reads they make anyway: StageScheduler); nothing is read for unnamed runners.
 */
export class HolderChecks {
  readonly #store: { stages: Pick<StageStore, 'find'> };

  constructor(store: { stages: Pick<StageStore, 'find'> }) {
    this.#store = store;
  }

  /** Checks that the request's runner holds stage `stageId` (an unknown stage is left to the route). */
  async stage(request: FastifyRequest, stageId: number): Promise<void> {
    const runner = runnerOf(request);
    if (runner === undefined) return;
    const stage = await this.#store.stages.find(stageId);
    if (stage !== undefined) checkHolder(runner, stage);
  }
}
