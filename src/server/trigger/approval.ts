import type { Repo } from '../../core/repo.js';
import type { ScmHookBuild } from '../../core/scm.js';

/**
 * Whether a new build must wait for someone with write access to approve it, by the repository's
 * approval policy: `none`, `forks` (pull requests from forks: code from outside runs on the
 * runners only once someone looked at it), `pull_requests` (every pull request), `all`. Protected
 * repositories hold every build as well (Drone's `protected`).
 */
export function needsApproval(
  repo: Pick<Repo, 'approval' | 'protected'>,
  hook: Pick<ScmHookBuild, 'event' | 'fork'>,
): boolean {
  if (repo.protected) return true;
  switch (repo.approval) {
    case 'none':
      return false;
    case 'forks':
      return hook.event === 'pull_request' && hook.fork;
    case 'pull_requests':
      return hook.event === 'pull_request';
    case 'all':
      return true;
  }
}
