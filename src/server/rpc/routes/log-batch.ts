import type { FastifyInstance } from 'fastify';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { StepStore } from '../../../core/step.js';
import {
  INT32_MAX,
  readBatch,
  readBatchText,
  wireBatch,
  type WireBatch,
} from '../../../runner/client/wire/index.js';
import { checkHolder } from '../../queue/holder-check.js';
import { runnerOf } from '../holder.js';
import type { RunnerBeats } from '../runner-beats.js';
import { idParam, jsonText, parseBody } from '../parse.js';

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
export function logBatchRoute(app: FastifyInstance, deps: LogBatchDeps, bodyLimit: number): void {
  const { beats } = deps;
  // The body comes as text: a batch as svc runners write it is stored as it came (readBatchText),
  // not parsed, checked and written again — a tenth of the server's work on a flooding step.
  void app.register((scope, _options, registered) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, text, parsed) =>
      parsed(null, String(text)),
    );
    scope.post('/step/:id/logs/batch', async (request, reply) => {
      const stepId = idParam(request);
      const text = typeof request.body === 'string' ? request.body : '';
      const exact = readBatchText(text);
      const body = exact ?? readBody(jsonText(text));
      const step = await deps.store.steps.find(stepId);
      if (step === undefined) throw new NotFoundError(`step ${stepId}`);
      const holder = await beats.holderOf(step.stageId);
      checkHolder(runnerOf(request), { id: step.stageId, machine: holder ?? '' });
      const { batch, lines } = Array.isArray(body) ? { batch: body[0]?.pos ?? 0, lines: body } : body;
      // A Drone runner's batch is stored under its first line's position, in a 32-bit column.
      if (batch > INT32_MAX)
        throw new InvalidInputError(`0.pos: ${batch} is too large (at most ${INT32_MAX})`);
      const stored =
        lines.length > 0 && (await deps.store.logBatches.append(stepId, batch, lines, exact?.json));
      if (stored) deps.liveLogs.publish(stepId, lines, batch);
      if (holder !== undefined) await beats.beat(holder, step.stageId);
      if (Array.isArray(body)) return reply.code(204).send();
      return { batch, duplicate: lines.length > 0 && !stored };
    });
    registered();
  });
}

/** A parsed body as a batch: the fast reader first, the schema for its message. */
function readBody(value: unknown): WireBatch {
  return readBatch(value) ?? parseBody(wireBatch, value, 'the log batch');
}
