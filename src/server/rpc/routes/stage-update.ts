import type { FastifyInstance } from 'fastify';
import { stageToWire, wireStage } from '../../../runner/client/wire/index.js';
import { isDone } from '../../../core/status.js';
import type { StageScheduler } from '../../queue/scheduler.js';
import { idParam, parseBody } from '../parse.js';
import { stageReport } from '../reports.js';
import { runnerOf } from '../holder.js';
import type { RunnerBeats } from '../runner-beats.js';

/**
 * PUT /rpc/v2/stage/{id} — the runner reports its stage: `running` with the steps it will run
 * (they are created then), or a final status with the steps' final state. 200 with the stored
 * stage and steps (ids, versions); 409 when the `version` sent is not the stored one, or when the
 * runner named in X-SVC-Runner does not hold the stage.
 */
export function stageUpdateRoute(
  app: FastifyInstance,
  deps: { scheduler: Pick<StageScheduler, 'report'>; beats: Pick<RunnerBeats, 'forget'> },
): void {
  app.put('/stage/:id', async (request) => {
    const id = idParam(request);
    const body = parseBody(wireStage, request.body, 'the stage');
    const stage = await deps.scheduler.report(stageReport(id, body), runnerOf(request));
    if (isDone(stage.status)) deps.beats.forget(stage.id);
    return stageToWire(stage, stage.steps);
  });
}
