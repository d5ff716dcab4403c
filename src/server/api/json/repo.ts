import type { Perm } from '../../../core/perm.js';
import type { Repo } from '../../../core/repo.js';
import { seconds } from './time.js';

/**
 * A repository as Drone's API shows it. The webhook secret is never part of it. `permissions` are
 * those of the user asking, when known.
 */
export function repoJson(repo: Repo, perm?: Pick<Perm, 'read' | 'write' | 'admin'>): Record<string, unknown> {
  return {
    id: repo.id,
    uid: repo.uid,
    user_id: repo.userId,
    namespace: repo.namespace,
    name: repo.name,
    slug: repo.slug,
    scm: repo.scm,
    git_http_url: repo.cloneUrl,
    git_ssh_url: repo.cloneUrlSsh,
    link: repo.link,
    default_branch: repo.defaultBranch,
    private: repo.private,
    visibility: repo.visibility,
    active: repo.active,
    config_path: repo.configPath,
    trusted: repo.trusted,
    protected: repo.protected,
    ignore_forks: repo.ignoreForks,
    ignore_pull_requests: repo.ignorePullRequests,
    auto_cancel_pull_requests: repo.cancelPulls,
    auto_cancel_pushes: repo.cancelPush,
    timeout: repo.timeout,
    counter: repo.counter,
    synced: seconds(repo.synced),
    created: seconds(repo.created),
    updated: seconds(repo.updated),
    version: repo.version,
    ...(perm === undefined ? {} : { permissions: { read: perm.read, write: perm.write, admin: perm.admin } }),
  };
}
