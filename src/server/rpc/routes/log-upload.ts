import type { FastifyInstance } from 'fastify';
import { ConflictError, NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogLine, LogStore } from '../../../core/log.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { QueueStore } from '../../../core/queue.js';
import type { StepStore } from '../../../core/step.js';
import { readUpload, wireUpload } from '../../../runner/client/wire/index.js';
import { idParam, parseBody } from '../parse.js';
import type { HolderChecks } from '../holder.js';

/**
 * Largest upload: a whole log sent as every line (Drone runners, or an svc runner whose batches the
 * server lacks). Above the protocol's usual limit, since losing a finished log is worse than a big
 * request; below V8's longest string, which the body becomes before it is parsed.
 */
export const UPLOAD_BODY_LIMIT = 500 * 1024 * 1024;

/** What the log upload route needs. */
export interface LogUploadDeps {
  store: {
    steps: Pick<StepStore, 'find'>;
    logs: Pick<LogStore, 'create' | 'createFromBatches'>;
    logBatches: Pick<LogBatchStore, 'delete' | 'json'>;
    queue: Pick<QueueStore, 'beat'>;
  };
  liveLogs: Pick<LiveLogs, 'publish' | 'end'>;
  holders: HolderChecks;
  now: () => number;
}

/**
 * POST /rpc/v2/step/{id}/logs/upload — the log of a finished step, stored as the step's log
 * (replacing any earlier upload, so a retry is harmless), then the step's other batches are deleted
 * and live watchers hear the end. 204. Counts as a heartbeat of the stage. The body is every line
 * (an array), or `{batches, lines}` from svc runners: the lines of batches 0 … batches − 1 as
 * stored, then `lines` — the batches become the log as they are (LogStore.createFromBatches), never
 * read back into lines — and those lines go to live watchers too. When any of those batches is
 * missing (deleted by the stage's end) the answer is 409, and the runner uploads every line.
 */
export function logUploadRoute(app: FastifyInstance, deps: LogUploadDeps): void {
  app.post('/step/:id/logs/upload', { bodyLimit: UPLOAD_BODY_LIMIT }, async (request, reply) => {
    const stepId = idParam(request);
    const body = readUpload(request.body ?? []) ?? parseBody(wireUpload, request.body ?? [], 'the log');
    const step = await deps.store.steps.find(stepId);
    if (step === undefined) throw new NotFoundError(`step ${stepId}`);
    await deps.holders.stage(request, step.stageId);
    let lastPos: number | undefined;
    if (Array.isArray(body)) await deps.store.logs.create(stepId, body);
    else lastPos = await storeAfterBatches(deps, stepId, body.batches, body.lines);
    await deps.store.logBatches.delete(stepId);
    deps.liveLogs.end(stepId, lastPos);
    await deps.store.queue.beat(step.stageId, deps.now());
    return reply.code(204).send();
  });
}

/** Stores the log; returns the position of its last line (-1: none). */
async function storeAfterBatches(
  deps: LogUploadDeps,
  stepId: number,
  batches: number,
  rest: readonly LogLine[],
): Promise<number> {
  const { logs, logBatches } = deps.store;
  // Only the last of the batches and any later ones are read: where the lines to publish start.
  const edges = await logBatches.json(stepId, batches, batches - 1);
  if (edges === undefined || !(await logs.createFromBatches(stepId, batches, rest))) {
    throw new ConflictError(
      `step ${stepId} lacks some of log batches 0 to ${batches - 1}: upload every line`,
    );
  }
  // Lines no batch brought to live watchers get to them now, rather than from the stored log.
  const published = edges.later.reduce((last, json) => Math.max(last, lastPos(json)), -1);
  deps.liveLogs.publish(
    stepId,
    rest.filter((line) => line.pos > published),
  );
  const lastStored = edges.batches.at(-1);
  return Math.max(lastStored === undefined ? -1 : lastPos(lastStored), rest.at(-1)?.pos ?? -1);
}

const LAST_LINE = Buffer.from('{"pos":');

/**
 * The position of the last line of a batch's JSON (-1 for none). The store writes each line as
 * `{"pos":N,…}`, and that text cannot occur inside a JSON string (its quotes would be escaped), so
 * the last occurrence starts the last line: no need to parse a megabyte to read one number.
 */
export function lastPos(json: Buffer): number {
  const at = json.lastIndexOf(LAST_LINE);
  if (at >= 0) {
    const digits = /^-?\d+/.exec(json.toString('latin1', at + LAST_LINE.length, at + LAST_LINE.length + 24));
    if (digits) return Number(digits[0]);
  }
  const lines = JSON.parse(json.toString('utf8')) as { pos?: unknown }[];
  const pos = lines.at(-1)?.pos;
  return typeof pos === 'number' ? pos : -1;
}
