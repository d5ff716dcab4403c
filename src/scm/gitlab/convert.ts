import type { ScmRepo, ScmStatus } from '../../core/scm.js';
import type { GitLabProject } from './schemas.js';

/** GitLab's access levels (docs: api/members). */
export const DEVELOPER = 30;
export const MAINTAINER = 40;

/** The user's level on the project: the higher of its own and its group's; undefined when GitLab gives neither. */
export function accessLevel(project: GitLabProject): number | undefined {
  const levels = [
    project.permissions?.project_access?.access_level,
    project.permissions?.group_access?.access_level,
  ];
  const known = levels.filter((level): level is number => level !== undefined);
  return known.length === 0 ? undefined : Math.max(...known);
}

/**
 * A project as svc sees it: `namespace` is everything before the last slash of its path (groups
 * nest), internal projects are private to the world outside. Developers write, maintainers administer.
 */
export function toScmRepo(project: GitLabProject, level: number): ScmRepo {
  const at = project.path_with_namespace.lastIndexOf('/');
  return {
    uid: String(project.id),
    namespace: project.path_with_namespace.slice(0, at),
    namespaceUid: project.namespace == null ? '' : String(project.namespace.id),
    name: project.path_with_namespace.slice(at + 1),
    cloneUrl: project.http_url_to_repo,
    cloneUrlSsh: project.ssh_url_to_repo,
    link: project.web_url,
    defaultBranch: project.default_branch ?? 'main',
    private: project.visibility !== 'public',
    visibility: project.visibility,
    perm: { read: true, write: level >= DEVELOPER, admin: level >= MAINTAINER },
  };
}

/** GitLab's commit status states (docs: api/commits#set-the-pipeline-status-of-a-commit). */
export function toGitLabState(state: ScmStatus['state']): 'pending' | 'running' | 'success' | 'failed' {
  switch (state) {
    case 'pending':
    case 'running':
    case 'success':
      return state;
    case 'failure':
    case 'error':
      return 'failed';
  }
}

/** The branch or tag a status is filed under: the short name of `refs/heads/…` and `refs/tags/…`. */
export function statusRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

/** Old GitLab versions gave relative avatar paths: made absolute against the server. */
export function absoluteUrl(url: string | null | undefined, server: string): string {
  if (url === null || url === undefined || url === '') return '';
  return /^https?:\/\//.test(url) ? url : new URL(url, `${server}/`).href;
}
