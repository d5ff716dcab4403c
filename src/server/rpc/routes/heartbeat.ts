import type { FastifyInstance } from 'fastify';
import type { StageScheduler } from '../../queue/scheduler.js';
import { idParam } from '../parse.js';

/**
 * POST /rpc/v2/stage/{id}/heartbeat — the runner of the stage is alive (svc runners send one every
 * 10 s). 204; 409 when the stage is no longer the runner's to run (done, or failed by the
 * watchdog), which tells the runner to stop it; 404 for an unknown stage.
 */
export function heartbeatRoute(
  app: FastifyInstance,
  deps: { scheduler: Pick<StageScheduler, 'beat'> },
): void {
  app.post('/stage/:id/heartbeat', async (request, reply) => {
    await deps.scheduler.beat(idParam(request));
    return reply.code(204).send();
  });
}
