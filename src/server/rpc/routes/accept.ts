import type { FastifyInstance } from 'fastify';
import { stageToWire } from '../../../runner/client/wire/index.js';
import type { StageScheduler } from '../../queue/scheduler.js';
import { idParam, queryParam } from '../parse.js';

/**
 * POST /rpc/v2/stage/{id}?machine=NAME — a runner takes the stage it was offered. 200 with the
 * stage when it is this runner's (also when it already was); 409 when another runner was first.
 */
export function acceptRoute(app: FastifyInstance, deps: { scheduler: Pick<StageScheduler, 'accept'> }): void {
  app.post('/stage/:id', async (request) => {
    const stage = await deps.scheduler.accept(idParam(request), queryParam(request, 'machine') ?? '');
    return stageToWire(stage, stage.steps);
  });
}
