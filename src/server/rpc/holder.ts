import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../core/errors.js';
import type { StageStore } from '../../core/stage.js';
import './runner-tokens.js';
import { checkHolder } from '../queue/holder-check.js';

/** The header in which svc's runners name themselves on every request (their `machine`). */
export const RUNNER_HEADER = 'x-svc-runner';

/**
 * The runner a request is from: the name of its runner token (auth.ts), which the runner cannot
 * change — naming another runner in X-SVC-Runner is FORBIDDEN — or, with the shared secret, the
 * name the runner gives itself; undefined when it names none (Drone's runners).
 */
export function runnerOf(request: FastifyRequest): string | undefined {
  const value = request.headers[RUNNER_HEADER];
  const named = typeof value === 'string' && value !== '' ? value : undefined;
  const token = request.runnerToken;
  if (token === null) return named;
  mustBe(token.name, named);
  return token.name;
}

/** FORBIDDEN unless the name a runner gives itself (if any) is its token's. */
export function mustBe(tokenName: string, named: string | undefined): void {
  if (named !== undefined && named !== tokenName)
    throw new ForbiddenError(
      `this runner token belongs to the runner "${tokenName}", not "${named}": name the runner ${tokenName} (SVC_RUNNER_NAME)`,
    );
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
