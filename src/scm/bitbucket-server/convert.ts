import type { ScmCommit, ScmRepo } from '../../core/scm.js';
import type { BitbucketServerCommit, BitbucketServerRepo } from './schemas.js';

/** What the user may do with a repository: read, write (`REPO_WRITE`), administer (`REPO_ADMIN`). */
export type Permission = ScmRepo['perm'];

/** The path of a repository in REST calls: `/projects/{key}/repos/{slug}`. */
export function repoPath(repo: { namespace: string; name: string }): string {
  return `/projects/${encodeURIComponent(repo.namespace)}/repos/${encodeURIComponent(repo.name)}`;
}

/**
 * A repository as svc stores it: `<PROJECT KEY>/<slug>` (`~USER/<slug>` for a personal one), the
 * HTTP clone link without the asking user's name (Bitbucket writes it into the link), the browse page.
 */
export function toScmRepo(
  repo: BitbucketServerRepo,
  perm: Permission,
  defaultBranch: string,
  web: string,
): ScmRepo {
  const clone = repo.links?.clone ?? [];
  const http = clone.find((link) => link.name === 'http')?.href;
  const key = repo.project.key;
  return {
    uid: String(repo.id),
    namespace: key,
    namespaceUid: repo.project.id === undefined ? '' : String(repo.project.id),
    name: repo.slug,
    cloneUrl: http === undefined ? `${web}/scm/${key.toLowerCase()}/${repo.slug}.git` : withoutUser(http),
    cloneUrlSsh: clone.find((link) => link.name === 'ssh')?.href ?? '',
    link: repo.links?.self?.[0]?.href ?? `${web}${repoPath({ namespace: key, name: repo.slug })}/browse`,
    defaultBranch,
    private: repo.public !== true,
    visibility: repo.public === true ? 'public' : 'private',
    perm,
  };
}

function withoutUser(href: string): string {
  try {
    const url = new URL(href);
    url.username = '';
    url.password = '';
    return url.href;
  } catch {
    return href;
  }
}

/** A commit; its author's account (and avatar) only when Bitbucket maps the email to one. */
export function toScmCommit(
  commit: BitbucketServerCommit,
  repo: { namespace: string; name: string },
  web: string,
): ScmCommit {
  const slug = commit.author.slug ?? '';
  return {
    sha: commit.id,
    message: commit.message ?? '',
    link: `${web}${repoPath(repo)}/commits/${commit.id}`,
    authorLogin: slug,
    authorName: commit.author.displayName ?? commit.author.name,
    authorEmail: commit.author.emailAddress ?? '',
    authorAvatar: slug === '' ? '' : avatarOf(web, slug),
  };
}

/** A user's avatar, served by Bitbucket for every account. */
export function avatarOf(web: string, slug: string): string {
  return `${web}/users/${encodeURIComponent(slug)}/avatar.png`;
}

/** Bitbucket Server's build states (INPROGRESS, SUCCESSFUL, FAILED) are those of Bitbucket Cloud. */
export { toBitbucketState as toBitbucketServerState } from '../bitbucket/convert.js';
