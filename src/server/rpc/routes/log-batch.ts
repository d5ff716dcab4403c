import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { QueueStore } from '../../../core/queue.js';
import type { StepStore } from '../../../core/step.js';
import { readBatch, wireBatch } from '../../../runner/client/wire/index.js';
import { idParam, parseBody } from '../parse.js';

/** What the log batch route needs. */
export interface LogBatchDeps {
  store: {
    steps: Pick<StepStore, 'find'>;
    logBatches: Pick<LogBatchStore, 'append'>;
    queue: Pick<QueueStore, 'beat'>;
  };
  liveLogs: Pick<LiveLogs, 'publish'>;
  now: () => number;
}

/**
 * POST /rpc/v2/step/{id}/logs/batch — lines of a running step. svc runners send `{batch, lines}`,
 * numbered from 0 per step, and resend a batch until it is acknowledged: the answer (200
 * `{"batch": n, "duplicate": bool}`) comes only once the batch is in the database, and a number
 * the step already has is dropped (`duplicate: true`). Drone runners send a bare array (answer
 * 204), stored under its first line's position. New lines go to live watchers; the request counts
 * as a heartbeat of the step's stage, written at most once per BEAT_EVERY_MS per stage: a busy log
 * sends batches ten times a second, and a heartbeat needs no more than one write per few seconds.
 */
export function logBatchRoute(app: FastifyInstance, deps: LogBatchDeps): void {
  const beats = new BeatCoalescer(deps.now);
  app.post('/step/:id/logs/batch', async (request, reply) => {
    const stepId = idParam(request);
    const body = readBatch(request.body) ?? parseBody(wireBatch, request.body, 'the log batch');
    const step = await deps.store.steps.find(stepId);
    if (step === undefined) throw new NotFoundError(`step ${stepId}`);
    const { batch, lines } = Array.isArray(body) ? { batch: body[0]?.pos ?? 0, lines: body } : body;
    const stored = lines.length > 0 && (await deps.store.logBatches.append(stepId, batch, lines));
    if (stored) deps.liveLogs.publish(stepId, lines);
    if (beats.due(step.stageId)) await deps.store.queue.beat(step.stageId, deps.now());
    if (Array.isArray(body)) return reply.code(204).send();
    return { batch, duplicate: lines.length > 0 && !stored };
  });
}

const BEAT_EVERY_MS = 5_000;

/** When each stage's last log-batch heartbeat was written; forgets stages quiet for a minute. */
class BeatCoalescer {
  readonly #last = new Map<number, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  due(stageId: number): boolean {
    const now = this.#now();
    if (now - (this.#last.get(stageId) ?? -Infinity) < BEAT_EVERY_MS) return false;
    this.#last.set(stageId, now);
    if (this.#last.size > 1_000) {
      for (const [id, at] of this.#last) if (now - at > 60_000) this.#last.delete(id);
    }
    return true;
  }
}
