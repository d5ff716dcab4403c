import type { Commit, ForgeState, Repo, User } from '../forge/state.js';

/** The double's own address, for the URLs its answers carry. */
export interface GogsUrls {
  web: string;
  api: string;
}

/** A user as `GET /user` shows it: `username` and its legacy twin `login`, an absolute avatar. */
export function renderUser(user: User, urls: GogsUrls, withEmail = true) {
  return {
    id: user.id,
    username: user.login,
    login: user.login,
    full_name: '',
    email: withEmail ? user.primaryEmail : '',
    avatar_url: `${urls.web}/avatars/${user.id}`,
  };
}

/** An organization of `GET /user/orgs`: its name is `username`. */
export function renderOrg(name: string, id: number, urls: GogsUrls) {
  return {
    id,
    username: name,
    full_name: name,
    avatar_url: `${urls.web}/avatars/${id}`,
    description: '',
    website: '',
    location: '',
  };
}

/** A repository; `permissions` only in API answers (webhook payloads have none). */
export function renderRepo(
  state: ForgeState,
  repo: Repo,
  urls: GogsUrls,
  permissions?: { admin: boolean; push: boolean; pull: boolean },
) {
  const owner = state.user(repo.owner);
  const fullName = `${repo.owner}/${repo.name}`;
  const host = new URL(urls.web).host;
  return {
    id: repo.id,
    owner:
      owner === undefined
        ? renderOrg(repo.owner, state.orgId(repo.owner), urls)
        : renderUser(owner, urls, false),
    name: repo.name,
    full_name: fullName,
    description: '',
    private: repo.private,
    fork: false,
    parent: null,
    empty: repo.branches.size === 0,
    mirror: false,
    size: 0,
    html_url: `${urls.web}/${fullName}`,
    ssh_url: `git@${host}:${fullName}.git`,
    clone_url: repo.cloneUrl ?? `${urls.web}/${fullName}.git`,
    website: '',
    stars_count: 0,
    forks_count: 0,
    watchers_count: 0,
    open_issues_count: 0,
    default_branch: repo.defaultBranch,
    created_at: repo.created,
    updated_at: repo.created,
    ...(permissions === undefined ? {} : { permissions }),
  };
}

/** A commit as webhooks and the branches API show it (`url` of the branches API says "Not implemented"). */
export function renderPayloadCommit(
  state: ForgeState,
  repo: Repo,
  commit: Commit,
  urls: GogsUrls,
  url?: string,
) {
  const author = state.user(commit.author);
  const person = {
    name: commit.author,
    email: author?.primaryEmail ?? `${commit.author}@example.com`,
    username: author?.login ?? '',
  };
  return {
    id: commit.sha,
    message: `${commit.message}\n`,
    url: url ?? `${urls.web}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    author: person,
    committer: person,
    added: null,
    removed: null,
    modified: null,
    timestamp: commit.timestamp,
  };
}

/** `GET /repos/{o}/{r}/commits/{sha}`: the message's subject line only; accounts matched by email. */
export function renderCommit(state: ForgeState, repo: Repo, commit: Commit, urls: GogsUrls) {
  const author = state.user(commit.author);
  const person = { name: commit.author, email: author?.primaryEmail ?? '', date: commit.timestamp };
  const api = `${urls.api}/repos/${repo.owner}/${repo.name}`;
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    html_url: `${urls.web}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: person,
      committer: person,
      message: commit.message.split('\n')[0] ?? '',
      tree: { url: `${api}/git/trees/${commit.sha}`, sha: commit.sha },
    },
    author: author === undefined ? null : renderUser(author, urls, false),
    committer: author === undefined ? null : renderUser(author, urls, false),
    parents:
      commit.parent === undefined ? [] : [{ url: `${api}/commits/${commit.parent}`, sha: commit.parent }],
  };
}
