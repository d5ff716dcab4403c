import type { Commit, ForgeState, Repo, User } from '../forge/state.js';
import type { BitbucketUrls } from './env.js';

const uuidOf = (id: number) =>
  `{${String(id).padStart(8, '0')}-0000-4000-8000-${String(id).padStart(12, '0')}}`;

export function renderAccount(user: User, urls: BitbucketUrls) {
  return {
    type: 'user',
    uuid: uuidOf(user.id),
    account_id: `5cf8${user.id}`,
    nickname: user.login,
    display_name: user.login,
    links: {
      avatar: { href: `${urls.web}/account/${user.login}/avatar/` },
      html: { href: `${urls.web}/${user.login}/` },
    },
  };
}

export function renderRepo(state: ForgeState, repo: Repo, urls: BitbucketUrls, viewer: string | undefined) {
  const fullName = `${repo.owner}/${repo.name}`;
  return {
    type: 'repository',
    uuid: uuidOf(repo.id),
    full_name: fullName,
    name: repo.name,
    slug: repo.name,
    is_private: repo.private,
    scm: 'git',
    mainbranch: { type: 'branch', name: repo.defaultBranch },
    workspace: {
      type: 'workspace',
      slug: repo.owner,
      uuid: uuidOf(state.ownerId(repo.owner)),
      name: repo.owner,
    },
    links: {
      html: { href: `${urls.web}/${fullName}` },
      clone: [
        {
          name: 'https',
          href: repo.cloneUrl ?? `${urls.web.replace('://', `://${viewer ?? 'anonymous'}@`)}/${fullName}.git`,
        },
        { name: 'ssh', href: `git@${new URL(urls.web).host}:${fullName}.git` },
      ],
    },
  };
}

export function renderCommit(state: ForgeState, repo: Repo, commit: Commit, urls: BitbucketUrls) {
  const user = state.user(commit.author);
  const email = user?.primaryEmail ?? `${commit.author}@example.com`;
  return {
    type: 'commit',
    hash: commit.sha,
    date: commit.timestamp,
    message: `${commit.message}\n`,
    author: {
      type: 'author',
      raw: `${commit.author} <${email}>`,
      ...(user === undefined ? {} : { user: renderAccount(user, urls) }),
    },
    parents: commit.parent === undefined ? [] : [{ type: 'commit', hash: commit.parent }],
    links: { html: { href: `${urls.web}/${repo.owner}/${repo.name}/commits/${commit.sha}` } },
  };
}

export { uuidOf };
