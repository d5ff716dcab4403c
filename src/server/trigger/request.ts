import type { Repo } from '../../core/repo.js';
import type { ScmCommit } from '../../core/scm.js';
import type { BuildRequest } from './trigger.js';

/** Who created builds that come from cron jobs (Drone's `@cron`). */
export const CRON_TRIGGER = '@cron';

/** What a build svc creates itself is for, besides the commit. */
export interface RequestFor {
  event: 'cron' | 'custom';
  branch: string;
  /** A user's login, or CRON_TRIGGER. */
  trigger: string;
  /** Who the build is shown as sent by: the caller's login; default the commit's author (cron jobs, as in Drone). */
  sender?: string;
  params?: Record<string, string>;
  /** A debug build (DRONE_BUILD_DEBUG): failed steps of docker runners with SHELLSHARE open tmate. */
  debug?: boolean;
  /** The cron job's name. */
  cron?: string;
  /** The deployment target (DRONE_DEPLOY_TO): a cron job's `target`. */
  deployTo?: string;
}

/**
 * The build request for a commit of a repository's own branch, as Drone fills its hook for custom and
 * cron builds: the commit is both `before` and `after` (nothing to compare it with), the branch is
 * source and target, and the title is empty.
 */
export function buildRequestOf(repo: Repo, commit: ScmCommit, what: RequestFor): BuildRequest {
  return {
    event: what.event,
    action: '',
    ref: `refs/heads/${what.branch}`,
    before: commit.sha,
    after: commit.sha,
    source: what.branch,
    target: what.branch,
    sourceRepo: repo.slug,
    fork: false,
    title: '',
    message: commit.message,
    link: commit.link,
    authorLogin: commit.authorLogin,
    authorName: commit.authorName,
    authorEmail: commit.authorEmail,
    authorAvatar: commit.authorAvatar,
    sender: what.sender ?? commit.authorLogin,
    trigger: what.trigger,
    params: what.params ?? {},
    debug: what.debug ?? false,
    cron: what.cron ?? '',
    deployTo: what.deployTo ?? '',
  };
}
