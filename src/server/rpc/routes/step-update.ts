import type { FastifyInstance } from 'fastify';
import { stepToWire, wireStep } from '../../../runner/client/wire/index.js';
import type { StageScheduler } from '../../queue/scheduler.js';
import { idParam, parseBody } from '../parse.js';
import { stepReport } from '../reports.js';
import { runnerOf } from '../holder.js';

/**
 * PUT /rpc/v2/step/{id} — the runner reports a step (started, finished). 200 with the stored step;
 * 409 when the `version` sent is not the stored one, the stage is already over, or the runner named
 * in X-SVC-Runner does not hold the stage.
 */
export function stepUpdateRoute(
  app: FastifyInstance,
  deps: { scheduler: Pick<StageScheduler, 'updateStep'> },
): void {
  app.put('/step/:id', async (request) => {
    const id = idParam(request);
    const body = parseBody(wireStep, request.body, 'the step');
    return stepToWire(await deps.scheduler.updateStep({ ...stepReport(body), id }, runnerOf(request)));
  });
}
