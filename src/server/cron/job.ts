import type { Cron } from '../../core/cron.js';
import type { ScmCommitRef } from '../../core/scm.js';
import { CRON_TRIGGER, type RequestFor } from '../trigger/index.js';

/**
 * The build a cron job asks for: the head of its branch, event `cron`, DRONE_CRON its name, its
 * `target` as the deployment target, sent by the commit's author and triggered by `@cron`, as Drone
 * builds cron jobs. The same for scheduled runs and "run now".
 */
export function cronBuildOf(cron: Cron): { at: ScmCommitRef; what: RequestFor } {
  return {
    at: { branch: cron.branch },
    what: {
      event: 'cron',
      branch: cron.branch,
      trigger: CRON_TRIGGER,
      cron: cron.name,
      deployTo: cron.target,
    },
  };
}
