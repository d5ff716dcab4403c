import type { CronStore } from '../../../core/cron.js';
import type { CommitBuilds } from '../../trigger/index.js';
import type { ApiRoute } from '../route.js';
import { changeCronRoutes } from './change.js';
import { execCronRoute } from './exec.js';
import { readCronRoutes } from './read.js';

/** Every cron route: read, change, run now. */
export function cronRoutes(deps: {
  readonly crons: CronStore;
  readonly builds: Pick<CommitBuilds, 'build'> | undefined;
}): ApiRoute[] {
  return [...readCronRoutes(deps), ...changeCronRoutes(deps), execCronRoute(deps)];
}
