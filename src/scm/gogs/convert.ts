import type { ScmCommit, ScmRepo } from '../../core/scm.js';
import type { GogsRepo } from './schemas.js';

/**
 * A Gogs repository as svc sees it. Gogs has public and private repositories only; its `push`
 * permission is svc's write, `pull` its read (a repository the user can see is readable).
 */
export function toScmRepo(repo: GogsRepo): ScmRepo {
  const permissions = repo.permissions ?? { admin: false, push: false, pull: true };
  return {
    uid: String(repo.id),
    namespace: repo.owner.username,
    namespaceUid: repo.owner.id === undefined ? '' : String(repo.owner.id),
    name: repo.name,
    cloneUrl: repo.clone_url,
    cloneUrlSsh: repo.ssh_url,
    link: repo.html_url,
    defaultBranch: repo.default_branch || 'master',
    private: repo.private,
    visibility: repo.private ? 'private' : 'public',
    perm: { read: permissions.pull, write: permissions.push, admin: permissions.admin },
  };
}

/**
 * Old Gogs versions give avatars as paths (`/avatars/6`) or protocol-relative URLs
 * (`//secure.gravatar.com/…`): made absolute against the server.
 */
export function absoluteAvatar(avatar: string | null | undefined, server: string): string {
  if (avatar === null || avatar === undefined || avatar === '') return '';
  if (avatar.startsWith('//')) return `${new URL(server).protocol}${avatar}`;
  return new URL(avatar, `${server}/`).href;
}

/** A commit from `GET …/commits/{sha}` with the full message `GET …/branches/…` gave (when known). */
export function toScmCommit(
  commit: {
    sha: string;
    html_url: string;
    commit: { message: string; author?: { name: string; email: string } | null | undefined };
    author?: { username: string; avatar_url?: string | null | undefined } | null | undefined;
  },
  server: string,
  fullMessage?: string,
): ScmCommit {
  return {
    sha: commit.sha,
    message: fullMessage ?? commit.commit.message,
    link: commit.html_url,
    authorLogin: commit.author?.username ?? '',
    authorName: commit.commit.author?.name ?? '',
    authorEmail: commit.commit.author?.email ?? '',
    authorAvatar: absoluteAvatar(commit.author?.avatar_url, server),
  };
}
