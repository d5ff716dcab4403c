import type { Logger } from 'pino';
import type { Build, BuildStore } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import { isDone } from '../../core/status.js';

/** What cancelling superseded builds needs. */
export interface AutoCancelDeps {
  readonly builds: Pick<BuildStore, 'list'>;
  readonly cancel: (build: Build, by: string, options: { superseded: true }) => Promise<unknown>;
  readonly logger: Logger;
}

/** Older builds looked at: superseded builds are recent ones. */
const RECENT = 50;

/**
 * The repository's auto-cancel settings, as Drone applies them when a build is created: a push
 * (with `auto_cancel_pushes`) or a pull request build (with `auto_cancel_pull_requests`) cancels
 * the older builds of the same event and git ref that are still pending — and, with
 * `auto_cancel_running`, those already running. Returns how many were cancelled; a build that ends
 * meanwhile is left alone.
 */
export async function cancelSuperseded(deps: AutoCancelDeps, repo: Repo, build: Build): Promise<number> {
  const wanted =
    (build.event === 'push' && repo.cancelPush) || (build.event === 'pull_request' && repo.cancelPulls);
  if (!wanted) return 0;
  const recent = await deps.builds.list(repo.id, { page: 1, perPage: RECENT }, { ref: build.ref });
  let cancelled = 0;
  for (const older of recent) {
    if (older.number >= build.number || older.event !== build.event || isDone(older.status)) continue;
    if (older.status === 'running' && !repo.cancelRunning) continue;
    try {
      await deps.cancel(older, `build ${build.number}`, { superseded: true });
      cancelled++;
    } catch (error) {
      deps.logger.info({ err: error, repo: repo.slug, build: older.number }, 'auto-cancel: left as it is');
    }
  }
  return cancelled;
}
