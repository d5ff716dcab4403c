import type { FastifyInstance } from 'fastify';
import type { QueueStore } from '../../../core/queue.js';
import type { StageStore } from '../../../core/stage.js';
import type { WireWatch } from '../../../runner/client/wire/index.js';
import type { BuildWatches } from '../../queue/build-watches.js';
import { idParam, queryParam, requestSignal } from '../parse.js';

/** What the watch route needs. */
export interface WatchDeps {
  store: { stages: Pick<StageStore, 'list'>; queue: Pick<QueueStore, 'beat'> };
  watches: BuildWatches;
  timeout: number;
  closing: AbortSignal;
  now: () => number;
}

/**
 * POST /rpc/v2/build/{id}/watch[?stage=ID] — long-poll for the end of the build. 200
 * `{"done": true, "status": …}` as soon as the build is done while the runner still runs (it was
 * cancelled: stop); 204 after the long-poll time (ask again). The request counts as a heartbeat of
 * stage ID, or — without `stage`, as Drone's runners send it — of every taken stage of the build.
 */
export function watchRoute(app: FastifyInstance, deps: WatchDeps): void {
  app.post('/build/:id/watch', async (request, reply) => {
    const buildId = idParam(request);
    const stage = Number(queryParam(request, 'stage') ?? 0);
    const now = deps.now();
    if (Number.isSafeInteger(stage) && stage > 0) await deps.store.queue.beat(stage, now);
    else {
      for (const taken of await deps.store.stages.list(buildId)) {
        if (taken.machine !== '') await deps.store.queue.beat(taken.id, now);
      }
    }
    const { signal, done } = requestSignal(request, deps.closing);
    try {
      const build = await deps.watches.wait(buildId, deps.timeout, signal);
      if (build === undefined) return await reply.code(204).send();
      return { done: true, status: build.status } satisfies WireWatch;
    } finally {
      done();
    }
  });
}
