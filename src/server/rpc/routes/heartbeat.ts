import type { FastifyInstance } from 'fastify';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { StageStore } from '../../../core/stage.js';
import { isDone } from '../../../core/status.js';
import { checkHolder } from '../../queue/holder-check.js';
import { runnerOf } from '../holder.js';
import { idParam } from '../parse.js';
import type { RunnerBeats } from '../runner-beats.js';

/**
 * POST /rpc/v2/stage/{id}/heartbeat — the runner of the stage is alive (svc runners send one every
 * 10 s). 204; 409 when the stage is no longer the runner's to run (done, or failed by the
 * watchdog) or held by another runner than the one named in X-SVC-Runner, which tells the runner to
 * stop it; 404 for an unknown stage. The stage is read (to answer 409 at once); the heartbeat itself
 * is written coalesced with the runner's other stages (RunnerBeats).
 */
export function heartbeatRoute(
  app: FastifyInstance,
  deps: { store: { stages: Pick<StageStore, 'find'> }; beats: RunnerBeats },
): void {
  app.post('/stage/:id/heartbeat', async (request, reply) => {
    const id = idParam(request);
    const stage = await deps.store.stages.find(id);
    if (stage === undefined) throw new NotFoundError(`stage ${id}`);
    if (stage.machine === '' || isDone(stage.status)) {
      throw new ConflictError(
        `stage ${id} is ${stage.status}${stage.machine === '' ? ' and not taken' : ''}: stop running it`,
      );
    }
    checkHolder(runnerOf(request), stage);
    await deps.beats.beat(stage.machine, stage.id);
    return reply.code(204).send();
  });
}
