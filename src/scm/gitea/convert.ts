import type { ScmCommit, ScmRepo, ScmStatus } from '../../core/scm.js';
import type { GiteaRepo } from './schemas.js';

/**
 * A Gitea repository as svc sees it. A repository marked public may live in a limited or private
 * organization: it is then no more public than its owner, as Woodpecker's Gitea driver reads it.
 */
export function toScmRepo(repo: GiteaRepo): ScmRepo {
  const permissions = repo.permissions ?? { admin: false, push: false, pull: true };
  const ownerHidden = repo.owner.visibility !== undefined && repo.owner.visibility !== 'public';
  const isPrivate = repo.private || ownerHidden;
  return {
    uid: String(repo.id),
    namespace: repo.owner.login,
    namespaceUid: repo.owner.id === undefined ? '' : String(repo.owner.id),
    name: repo.name,
    cloneUrl: repo.clone_url,
    cloneUrlSsh: repo.ssh_url,
    link: repo.html_url,
    defaultBranch: repo.default_branch || 'main',
    private: isPrivate,
    visibility: repo.private ? 'private' : repo.internal === true || ownerHidden ? 'internal' : 'public',
    perm: { read: permissions.pull, write: permissions.push, admin: permissions.admin },
  };
}

/** A commit of `GET …/git/commits/{sha}`. */
export function toScmCommit(commit: {
  sha: string;
  html_url: string;
  commit: { message: string; author?: { name: string; email: string } | null | undefined };
  author?: { login: string; avatar_url?: string | null | undefined } | null | undefined;
}): ScmCommit {
  return {
    sha: commit.sha,
    message: commit.commit.message.replace(/\n+$/, ''),
    link: commit.html_url,
    authorLogin: commit.author?.login ?? '',
    authorName: commit.commit.author?.name ?? '',
    authorEmail: commit.commit.author?.email ?? '',
    authorAvatar: commit.author?.avatar_url ?? '',
  };
}

/** Gitea's commit states: it has no `running`, so it shows as pending. */
export function toGiteaState(state: ScmStatus['state']): 'pending' | 'success' | 'failure' | 'error' {
  return state === 'running' ? 'pending' : state;
}
