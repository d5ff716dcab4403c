import { createHash } from 'node:crypto';
import type { ScmCommit, ScmRepo, ScmStatus } from '../../core/scm.js';
import type { BitbucketCommit, BitbucketRepo } from './schemas.js';

/** A repository with the user's permission on it (`read` when Bitbucket lists none: public, or through a group). */
export function toScmRepo(repo: BitbucketRepo, permission: 'admin' | 'write' | 'read'): ScmRepo {
  const [workspace = '', slug = repo.slug ?? ''] = repo.full_name.split('/');
  const https =
    repo.links.clone?.find((link) => link.name === 'https')?.href ?? `${repo.links.html.href}.git`;
  return {
    uid: repo.uuid,
    namespace: workspace,
    namespaceUid: repo.workspace?.uuid ?? '',
    name: slug,
    cloneUrl: withoutUser(https),
    cloneUrlSsh: repo.links.clone?.find((link) => link.name === 'ssh')?.href ?? '',
    link: repo.links.html.href,
    defaultBranch: repo.mainbranch?.name ?? 'main',
    private: repo.is_private,
    visibility: repo.is_private ? 'private' : 'public',
    perm: { read: true, write: permission !== 'read', admin: permission === 'admin' },
  };
}

/** Bitbucket writes the asking user's name into https clone links: the link steps get has none. */
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

/** `Name <email>` of a commit's raw author line. */
export function authorOf(raw: string): { name: string; email: string } {
  const match = /^(.*?)\s*<([^>]*)>\s*$/.exec(raw);
  return match === null ? { name: raw.trim(), email: '' } : { name: match[1] ?? '', email: match[2] ?? '' };
}

export function toScmCommit(commit: BitbucketCommit): ScmCommit {
  const { name, email } = authorOf(commit.author.raw);
  return {
    sha: commit.hash,
    message: commit.message.replace(/\n+$/, ''),
    link: commit.links.html.href,
    authorLogin: commit.author.user?.nickname ?? '',
    authorName: name,
    authorEmail: email,
    authorAvatar: commit.author.user?.links?.avatar?.href ?? '',
  };
}

/** Bitbucket's build states: running and pending are in progress; errors fail. */
export function toBitbucketState(state: ScmStatus['state']): 'INPROGRESS' | 'SUCCESSFUL' | 'FAILED' {
  switch (state) {
    case 'pending':
    case 'running':
      return 'INPROGRESS';
    case 'success':
      return 'SUCCESSFUL';
    case 'failure':
    case 'error':
      return 'FAILED';
  }
}

/** A status key of at most 40 characters (Bitbucket refuses longer ones): longer names are hashed. */
export function statusKey(context: string): string {
  return context.length <= 40 ? context : createHash('sha1').update(context).digest('hex');
}
