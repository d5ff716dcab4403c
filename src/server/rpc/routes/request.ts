import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { ConflictError, InvalidInputError } from '../../../core/errors.js';
import type { Stage } from '../../../core/stage.js';
import { stageToWire, wireFilter, type WireFilter } from '../../../runner/client/wire/index.js';
import type { RunnerRegistry } from '../../queue/runner-registry.js';
import type { StageScheduler } from '../../queue/scheduler.js';
import type { StageQueue } from '../../queue/stage-queue.js';
import { mustBe } from '../holder.js';
import { parseBody, requestSignal } from '../parse.js';

/** What the request route needs. */
export interface RequestRouteDeps {
  queue: StageQueue;
  runners: RunnerRegistry;
  scheduler: Pick<StageScheduler, 'accept' | 'requeue'>;
  closing: AbortSignal;
  logger: Logger;
}

/**
 * POST /rpc/v2/stage — a runner asks for work with its filter (kind, type, os, arch, variant,
 * kernel, labels, and svc's `limits`). 200 with the oldest queued stage that suits it, as soon as
 * there is one; 204 when none came within the long-poll time (the runner asks again). A stage whose
 * answer does not reach the runner (its connection closed) is offered to the next request at once.
 * An svc runner's filter says who asks (`runner`): the runner is registered (RunnerRegistry). With
 * `claim`, the stage is taken for that runner before the answer (the answer is the accepted stage,
 * `machine` set), and given back when the answer does not reach it; a stage a runner of another
 * server sharing the database took first makes way for the next queued one.
 */
export function requestRoute(app: FastifyInstance, deps: RequestRouteDeps): void {
  app.post('/stage', async (request, reply) => {
    const filter = asTokenAllows(request, parseBody(wireFilter, request.body ?? {}, 'the stage filter'));
    if (filter.claim === true && filter.runner === undefined) {
      throw new InvalidInputError('the stage filter: claim needs the runner that claims (runner.name)');
    }
    // Not awaited: the poll does not wait for the write (which never fails it).
    void deps.runners.seen(filter);
    const { signal, done } = requestSignal(request, deps.closing);
    try {
      const answer = await nextStage(deps, filter, signal);
      if (answer === undefined) return await reply.code(204).send();
      whenUndelivered(reply, () => giveBack(deps, answer));
      return stageToWire(answer, []);
    } finally {
      done();
    }
  });
}

/** Claims lost to another server's runner before the request is answered "nothing" (it asks again). */
const CLAIMS = 5;

/**
 * The stage to answer with (claimed when the filter says so), within the long-poll time; undefined
 * when none came, or the runner went away (what it was offered is offered to another at once).
 */
async function nextStage(
  deps: RequestRouteDeps,
  filter: WireFilter,
  signal: AbortSignal,
): Promise<Stage | undefined> {
  const deadline = performance.now() + deps.queue.longPoll;
  for (let attempt = 0; attempt < CLAIMS; attempt++) {
    const stage = await deps.queue.request(filter, signal, deadline - performance.now());
    if (stage === undefined) return undefined;
    if (signal.aborted) {
      deps.queue.release(stage.id);
      return undefined;
    }
    if (filter.claim !== true) return stage;
    const claimed = await claim(deps, stage, filter, signal);
    // Lost to a runner of another server sharing the database: the next queued stage, if any.
    if (claimed !== 'lost') return claimed;
  }
  return undefined;
}

/**
 * The stage taken for the filter's runner; 'lost' when another runner was first (or its pipeline's
 * concurrency limit is reached); undefined when the runner went away meanwhile.
 */
async function claim(
  deps: RequestRouteDeps,
  stage: Stage,
  filter: WireFilter,
  signal: AbortSignal,
): Promise<Stage | 'lost' | undefined> {
  let taken: Stage;
  try {
    taken = await deps.scheduler.accept(stage.id, filter.runner?.name ?? '');
  } catch (error) {
    // Its offer stays held here for the offer's time (as after an accept lost with 409), so that
    // the next request is offered another stage, not this one again.
    if (error instanceof ConflictError) return 'lost';
    throw error;
  }
  // A read of the queue from before this runner took the stage through another server (issue 31):
  // accept answers a stage its runner already holds, which suits a repeated accept, but here the
  // runner did not ask for it — it runs it already, and a second run's log batches would meet the
  // first's. Only a stage still waiting for its start may go to its runner again (an answer lost).
  if (taken.status !== 'pending') {
    deps.queue.taken(stage.id);
    return 'lost';
  }
  if (!signal.aborted) return taken;
  giveBack(deps, taken);
  return undefined;
}

/** Queues the stage again: a claim whose answer was lost; what cannot be given back now, the watchdog gives back. */
function giveBack(deps: RequestRouteDeps, stage: Stage): void {
  if (stage.machine === '') {
    deps.queue.release(stage.id);
    return;
  }
  deps.scheduler.requeue(stage).catch((error: unknown) => {
    deps.logger.warn(
      { err: error, stage: stage.id },
      'a claimed stage whose answer was lost could not be queued again now; the heartbeat watchdog will',
    );
  });
}

/** Runs `undelivered` when the connection closes before the whole answer was written. */
function whenUndelivered(reply: FastifyReply, undelivered: () => void): void {
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) undelivered();
  });
}

/**
 * A runner with its own token asks as its token's runner: under that name only, and with the
 * token's labels when it has some, in place of the labels the runner claims (it cannot offer itself
 * for stages whose `node` labels its administrator did not give it).
 */
function asTokenAllows(request: FastifyRequest, filter: WireFilter): WireFilter {
  const token = request.runnerToken;
  if (token === null) return filter;
  mustBe(token.name, filter.runner?.name);
  const labels = Object.keys(token.labels).length > 0 ? { ...token.labels } : filter.labels;
  return { ...filter, labels };
}
