import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogStore } from '../../../core/log.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { QueueStore } from '../../../core/queue.js';
import type { StepStore } from '../../../core/step.js';
import { wireUpload } from '../../../runner/client/wire/index.js';
import { idParam, parseBody } from '../parse.js';

/** What the log upload route needs. */
export interface LogUploadDeps {
  store: {
    steps: Pick<StepStore, 'find'>;
    logs: Pick<LogStore, 'create'>;
    logBatches: Pick<LogBatchStore, 'delete'>;
    queue: Pick<QueueStore, 'beat'>;
  };
  liveLogs: Pick<LiveLogs, 'end'>;
  now: () => number;
}

/**
 * POST /rpc/v2/step/{id}/logs/upload — the whole log of a finished step (an array of lines). It is
 * stored as the step's log, replacing any earlier upload (so a retry is harmless), then the step's
 * batches are deleted and live watchers hear the end. 204. Counts as a heartbeat of the stage.
 */
export function logUploadRoute(app: FastifyInstance, deps: LogUploadDeps): void {
  app.post('/step/:id/logs/upload', async (request, reply) => {
    const stepId = idParam(request);
    const lines = parseBody(wireUpload, request.body ?? [], 'the log');
    const step = await deps.store.steps.find(stepId);
    if (step === undefined) throw new NotFoundError(`step ${stepId}`);
    await deps.store.logs.create(stepId, lines);
    await deps.store.logBatches.delete(stepId);
    deps.liveLogs.end(stepId);
    await deps.store.queue.beat(step.stageId, deps.now());
    return reply.code(204).send();
  });
}
