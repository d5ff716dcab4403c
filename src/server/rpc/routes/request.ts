import type { FastifyInstance } from 'fastify';
import { stageToWire, wireFilter } from '../../../runner/client/wire/index.js';
import type { RunnerRegistry } from '../../queue/runner-registry.js';
import type { StageQueue } from '../../queue/stage-queue.js';
import { parseBody, requestSignal } from '../parse.js';

/**
 * POST /rpc/v2/stage — a runner asks for work with its filter (kind, type, os, arch, variant,
 * kernel, labels, and svc's `limits`). 200 with the oldest queued stage that suits it, as soon as
 * there is one; 204 when none came within the long-poll time (the runner asks again). A stage whose
 * answer does not reach the runner (its connection closed) is offered to the next request at once.
 * An svc runner's filter says who asks (`runner`): the runner is registered (RunnerRegistry).
 */
export function requestRoute(
  app: FastifyInstance,
  deps: { queue: StageQueue; runners: RunnerRegistry; closing: AbortSignal },
): void {
  app.post('/stage', async (request, reply) => {
    const filter = parseBody(wireFilter, request.body ?? {}, 'the stage filter');
    // Not awaited: the poll does not wait for the write (which never fails it).
    void deps.runners.seen(filter);
    const { signal, done } = requestSignal(request, deps.closing);
    try {
      const stage = await deps.queue.request(filter, signal);
      if (stage === undefined) return await reply.code(204).send();
      // A runner that went away meanwhile never gets the stage: offer it to another one.
      if (signal.aborted) deps.queue.release(stage.id);
      else {
        reply.raw.once('close', () => {
          if (!reply.raw.writableFinished) deps.queue.release(stage.id);
        });
      }
      return stageToWire(stage, []);
    } finally {
      done();
    }
  });
}
