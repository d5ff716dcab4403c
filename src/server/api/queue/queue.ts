import { z } from 'zod';
import type { QueueSwitch } from '../../../core/queue.js';
import type { PendingReasons } from '../../queue/pending-reasons.js';
import { stageJson } from '../json/build.js';
import { ADMIN, route, type ApiRoute } from '../route.js';
import { stageSchema } from '../schemas.js';

/** What the queue's administration needs. */
export interface QueueAdminDeps {
  readonly queue: QueueSwitch;
  readonly reasons: Pick<PendingReasons, 'queue'>;
}

/**
 * The queue, as Drone's API has it, for svc administrators: `GET /api/queue` lists the incomplete
 * stages (pending or running, oldest first; svc adds `pending_reason` to the pending ones),
 * `DELETE /api/queue` pauses it (runners get no new stages; stages already taken go on) and
 * `POST /api/queue` resumes it. The pause is kept in the database: it survives restarts and holds
 * for every server sharing the database.
 */
export function queueRoutes(deps: QueueAdminDeps): ApiRoute[] {
  const common = { access: ADMIN, tag: 'queue' } as const;
  return [
    route({
      ...common,
      method: 'GET',
      path: '/api/queue',
      summary: 'The incomplete stages, each pending one with why it waits',
      response: { schema: z.array(stageSchema), description: 'pending and running stages, oldest first' },
      async handler() {
        return (await deps.reasons.queue()).map(({ item, reason }) => ({
          ...stageJson(item.stage),
          ...(reason === undefined ? {} : { pending_reason: reason }),
        }));
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/queue',
      summary: 'Pause the queue: runners get no new stages',
      response: { status: 204, description: 'paused (also when it already was)' },
      async handler({ reply }) {
        await deps.queue.pause();
        return reply.code(204).send();
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/queue',
      summary: 'Resume the queue',
      response: { status: 204, description: 'resumed (also when it was not paused)' },
      async handler({ reply }) {
        await deps.queue.resume();
        return reply.code(204).send();
      },
    }),
  ];
}
