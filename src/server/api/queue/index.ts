import type { QueueSwitch } from '../../../core/queue.js';
import type { Store } from '../../../core/store.js';
import type { PendingReasons } from '../../queue/pending-reasons.js';
import { incompleteBuildsRoute } from '../builds/incomplete.js';
import type { ApiRoute } from '../route.js';
import { statsRoute } from '../system/stats.js';
import { queueRoutes } from './queue.js';
import { runnerTokenRoutes } from './runner-tokens.js';
import { runnersRoute } from './runners.js';

/** What the administration of the queue, runners and statistics needs. */
export interface QueueAdminRoutesDeps {
  readonly store: Pick<Store, 'users' | 'repos' | 'builds' | 'stages' | 'queue' | 'runners' | 'runnerTokens'>;
  readonly queue: QueueSwitch;
  readonly reasons: PendingReasons;
}

/**
 * svc administrators' view of the work: the queue (list, pause, resume), the runners, the
 * incomplete builds and the statistics (docs/api.md, "Queue, runners and statistics").
 */
export function queueAdminRoutes({ store, queue, reasons }: QueueAdminRoutesDeps): ApiRoute[] {
  return [
    ...queueRoutes({ queue, reasons }),
    runnersRoute({ runners: store.runners, queue: store.queue }),
    ...runnerTokenRoutes({ runnerTokens: store.runnerTokens }),
    incompleteBuildsRoute({ builds: store.builds, repos: store.repos, stages: store.stages, reasons }),
    statsRoute({ users: store.users, repos: store.repos, builds: store.builds, queue: store.queue }),
  ];
}
