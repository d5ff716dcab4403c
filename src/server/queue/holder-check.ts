import { ConflictError } from '../../core/errors.js';
import type { Stage } from '../../core/stage.js';

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
