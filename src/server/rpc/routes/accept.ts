import type { FastifyInstance } from 'fastify';
import { stageToWire } from '../../../runner/client/wire/index.js';
import type { StageScheduler } from '../../queue/scheduler.js';
import { mustBe } from '../holder.js';
import { idParam, queryParam } from '../parse.js';

/**
 * POST /rpc/v2/stage/{id}?machine=NAME — a runner takes the stage it was offered. 200 with the
 * stage when it is this runner's (also when it already was); 409 when another runner was first.
 */
export function acceptRoute(app: FastifyInstance, deps: { scheduler: Pick<StageScheduler, 'accept'> }): void {
  app.post('/stage/:id', async (request) => {
    const machine = queryParam(request, 'machine') ?? '';
    // A runner with its own token takes stages under its token's name only.
    if (request.runnerToken !== null) mustBe(request.runnerToken.name, machine);
    const stage = await deps.scheduler.accept(idParam(request), machine);
    return stageToWire(stage, stage.steps);
  });
}
