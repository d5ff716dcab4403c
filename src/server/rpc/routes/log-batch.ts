import type { FastifyInstance } from 'fastify';
import { InvalidInputError, NotFoundError } from '../../../core/errors.js';
import type { LiveLogs } from '../../../core/live-logs.js';
import type { LogBatchStore } from '../../../core/log-batch.js';
import type { QueueStore } from '../../../core/queue.js';
import type { StageStore } from '../../../core/stage.js';
import type { StepStore } from '../../../core/step.js';
import { INT32_MAX, readBatch, wireBatch } from '../../../runner/client/wire/index.js';
import { checkHolder, runnerOf } from '../holder.js';
import { idParam, parseBody } from '../parse.js';

/** What the log batch route needs. */
export interface LogBatchDeps {
  store: {
    steps: Pick<StepStore, 'find'>;
    stages: Pick<StageStore, 'find'>;
    logBatches: Pick<LogBatchStore, 'append'>;
    queue: Pick<QueueStore, 'beatRunner'>;
  };
  liveLogs: Pick<LiveLogs, 'publish'>;
  now: () => number;
}

/**
 * POST /rpc/v2/step/{id}/logs/batch — lines of a running step. svc runners send `{batch, lines}`,
 * numbered from 0 per step, and resend a batch until it is acknowledged: the answer (200
 * `{"batch": n, "duplicate": bool}`) comes only once the batch is in the database, and a number
 * the step already has is dropped (`duplicate: true`). Drone runners send a bare array (answer
 * 204), stored under its first line's position. New lines go to live watchers. The request counts
 * as a heartbeat of the runner holding the step's stage, coalesced: at most one write per
 * BEAT_EVERY_MS per RUNNER, covering every stage it holds. A busy log sends batches ten times a
 * second, and a runner of capacity 8 runs 8 logs at once; a heartbeat needs one write per few seconds.
 */
export function logBatchRoute(app: FastifyInstance, deps: LogBatchDeps): void {
  const beats = new RunnerBeats(deps);
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
    if (holder !== undefined) await beats.beat(holder);
    if (Array.isArray(body)) return reply.code(204).send();
    return { batch, duplicate: lines.length > 0 && !stored };
  });
}

const BEAT_EVERY_MS = 5_000;
/** Stages whose runner is remembered; a taken stage's runner never changes, so it is read once. */
const REMEMBERED_STAGES = 4_096;

/** Heartbeats from log batches, written at most once per BEAT_EVERY_MS per runner. */
class RunnerBeats {
  readonly #deps: LogBatchDeps;
  /** The runner of each stage seen, oldest first (a Map keeps insertion order). */
  readonly #runnerOf = new Map<number, string>();
  /** When each runner's last heartbeat was written. */
  readonly #last = new Map<string, number>();

  constructor(deps: LogBatchDeps) {
    this.#deps = deps;
  }

  /** Writes the runner's heartbeat unless one was written less than BEAT_EVERY_MS ago. */
  async beat(runner: string): Promise<void> {
    const now = this.#deps.now();
    if (now - (this.#last.get(runner) ?? -Infinity) < BEAT_EVERY_MS) return;
    this.#last.set(runner, now);
    if (this.#last.size > 1_000) {
      for (const [name, at] of this.#last) if (now - at > 60_000) this.#last.delete(name);
    }
    await this.#deps.store.queue.beatRunner(runner, now);
  }

  /** The runner holding the stage, undefined when none does. */
  async holderOf(stageId: number): Promise<string | undefined> {
    const known = this.#runnerOf.get(stageId);
    if (known !== undefined) return known;
    const machine = (await this.#deps.store.stages.find(stageId))?.machine ?? '';
    // Not taken (a stray batch): nothing to beat, and nothing to remember.
    if (machine === '') return undefined;
    this.#runnerOf.set(stageId, machine);
    if (this.#runnerOf.size > REMEMBERED_STAGES) {
      const oldest = this.#runnerOf.keys().next().value;
      if (oldest !== undefined) this.#runnerOf.delete(oldest);
    }
    return machine;
  }
}
