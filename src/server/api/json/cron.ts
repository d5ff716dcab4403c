import type { Cron } from '../../../core/cron.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A cron job as Drone's API shows it: snake_case, times in epoch seconds. */
export function cronJson(cron: Cron): Record<string, unknown> {
  return {
    id: cron.id,
    repo_id: cron.repoId,
    name: cron.name,
    expr: cron.expr,
    next: seconds(cron.next),
    prev: seconds(cron.prev),
    event: cron.event,
    branch: cron.branch,
    target: cron.target,
    disabled: cron.disabled,
    created: seconds(cron.created),
    updated: seconds(cron.updated),
    version: cron.version,
  };
}
