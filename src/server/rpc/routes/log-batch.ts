import type { FastifyInstance } from 'fastify';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { StepStore } from '../../../core/step.js';
import { INT32_MAX, readBatch, wireBatch } from '../../../runner/client/wire/index.js';
import { checkHolder } from '../../queue/holder-check.js';
import { runnerOf } from '../holder.js';
import type { RunnerBeats } from '../runner-beats.js';
import { idParam, parseBody } from '../parse.js';

/** What the log batch route needs. */
export interface LogBatchDeps {
  store: {
    steps: Pick<StepStore, 'find'>;
    logBatches: Pick<LogBatchStore, 'append'>;
  };
  liveLogs: Pick<LiveLogs, 'publish'>;
  /** Heartbeats coalesced per runner, shared with the other routes that count as one. */
  beats: RunnerBeats;
}

/**
 * POST /rpc/v2/step/{id}/logs/batch — lines of a running step. svc runners send `{batch, lines}`,
 * numbered from 0 per step, and resend a batch until it is acknowledged: the answer (200
 * `{"batch": n, "duplicate": bool}`) comes only once the batch is in the database, and a number
 * the step already has is dropped (`duplicate: true`). Drone runners send a bare array (answer
 * 204), stored under its first line's position. New lines go to live watchers. The request counts
 * as a heartbeat of the step's stage, coalesced per runner (RunnerBeats).
 */
export function logBatchRoute(app: FastifyInstance, deps: LogBatchDeps): void {
  const { beats } = deps;
  app.post('/step/:id/logs/batch', async (request, reply) => {
    const stepId = idParam(request);
    const body = readBatch(request.body) ?? parseBody(wireBatch, request.body, 'the log batch');
    const step = await deps.store.steps.find(stepId);
    if (step === undefined) throw new NotFoundError(`step ${stepId}`);
    const holder = await beats.holderOf(step.stageId);
    checkHolder(runnerOf(request), { id: step.stageId, machine: holder ?? '' });
    const { batch, lines } = Array.isArray(body) ? { batch: body[0]?.pos ?? 0, lines: body } : body;
    // A Drone runner's batch is stored under its first line's position, in a 32-bit column.
    if (batch > INT32_MAX) throw new InvalidInputError(`0.pos: ${batch} is too large (at most ${INT32_MAX})`);
    const stored = lines.length > 0 && (await deps.store.logBatches.append(stepId, batch, lines));
    if (stored) deps.liveLogs.publish(stepId, lines, batch);
    if (holder !== undefined) await beats.beat(holder, step.stageId);
    if (Array.isArray(body)) return reply.code(204).send();
    return { batch, duplicate: lines.length > 0 && !stored };
  });
}
