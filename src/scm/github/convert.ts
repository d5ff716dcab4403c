import type { ScmCommit, ScmRepo, ScmStatus } from '../../core/scm.js';
import type { GitHubCommit, GitHubRepo } from './schemas.js';

/**
 * A GitHub repository as svc sees it. GitHub's `push` permission is svc's write, `pull` its read;
 * `visibility` is absent on old GitHub Enterprise Server versions, where `private` decides.
 */
export function toScmRepo(repo: GitHubRepo): ScmRepo {
  const permissions = repo.permissions ?? {};
  return {
    uid: String(repo.id),
    namespace: repo.owner.login,
    namespaceUid: repo.owner.id === undefined ? '' : String(repo.owner.id),
    name: repo.name,
    cloneUrl: repo.clone_url,
    cloneUrlSsh: repo.ssh_url,
    link: repo.html_url,
    defaultBranch: repo.default_branch,
    private: repo.private,
    visibility: repo.visibility ?? (repo.private ? 'private' : 'public'),
    perm: {
      read: permissions.pull === true,
      write: permissions.push === true,
      admin: permissions.admin === true,
    },
  };
}

/** A GitHub commit: the account (login, avatar) when GitHub matched the author's email to one. */
export function toScmCommit(commit: GitHubCommit): ScmCommit {
  return {
    sha: commit.sha,
    message: commit.commit.message,
    link: commit.html_url,
    authorLogin: commit.author?.login ?? '',
    authorName: commit.commit.author?.name ?? '',
    authorEmail: commit.commit.author?.email ?? '',
    authorAvatar: commit.author?.avatar_url ?? '',
  };
}

/** GitHub's commit states (docs: rest/commits/statuses): it has no `running`, so it shows as pending. */
export function toGitHubState(state: ScmStatus['state']): 'pending' | 'success' | 'failure' | 'error' {
  switch (state) {
    case 'pending':
    case 'running':
      return 'pending';
    case 'success':
      return 'success';
    case 'failure':
      return 'failure';
    case 'error':
      return 'error';
  }
}

/** GitHub refuses status descriptions longer than 140 characters with 422. */
export const MAX_DESCRIPTION = 140;

/** The description cut to what GitHub accepts, marked as cut. */
export function statusDescription(description: string): string {
  const chars = [...description];
  return chars.length <= MAX_DESCRIPTION ? description : `${chars.slice(0, MAX_DESCRIPTION - 1).join('')}…`;
}
