import type { FastifyInstance } from 'fastify';
import type { StageScheduler } from '../../queue/scheduler.js';
import { idParam } from '../parse.js';
import type { HolderChecks } from '../holder.js';

/**
 * POST /rpc/v2/stage/{id}/heartbeat — the runner of the stage is alive (svc runners send one every
 * 10 s). 204; 409 when the stage is no longer the runner's to run (done, or failed by the
 * watchdog) or held by another runner than the one named in X-SVC-Runner, which tells the runner to
 * stop it; 404 for an unknown stage.
 */
export function heartbeatRoute(
  app: FastifyInstance,
  deps: { scheduler: Pick<StageScheduler, 'beat'>; holders: HolderChecks },
): void {
  app.post('/stage/:id/heartbeat', async (request, reply) => {
    const id = idParam(request);
    await deps.holders.stage(request, id);
    await deps.scheduler.beat(id);
    return reply.code(204).send();
  });
}
