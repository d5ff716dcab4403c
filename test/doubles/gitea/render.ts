import type { Commit, ForgeState, Repo, User } from '../forge/state.js';
import type { GiteaUrls } from './env.js';

export function renderUser(user: User, urls: GiteaUrls) {
  return {
    id: user.id,
    login: user.login,
    login_name: '',
    full_name: '',
    email: user.primaryEmail,
    avatar_url: `${urls.web}/avatars/${user.id}`,
    html_url: `${urls.web}/${user.login}`,
    language: 'en-US',
    is_admin: false,
    restricted: false,
    active: true,
    prohibit_login: false,
    visibility: 'public',
    username: user.login,
  };
}

export function renderOrg(name: string, id: number, urls: GiteaUrls) {
  return {
    id,
    name,
    full_name: name,
    email: '',
    avatar_url: `${urls.web}/avatars/${id}`,
    description: '',
    website: '',
    location: '',
    visibility: 'public',
    repo_admin_change_team_access: false,
    username: name,
  };
}

/** A repository; `permissions` relative to the caller (webhook payloads: the owner's). */
export function renderRepo(
  state: ForgeState,
  repo: Repo,
  urls: GiteaUrls,
  permissions: { admin: boolean; push: boolean; pull: boolean },
) {
  const owner = state.user(repo.owner);
  const fullName = `${repo.owner}/${repo.name}`;
  return {
    id: repo.id,
    owner:
      owner === undefined
        ? {
            id: state.orgId(repo.owner),
            login: repo.owner,
            username: repo.owner,
            visibility: 'public',
            avatar_url: '',
          }
        : renderUser(owner, urls),
    name: repo.name,
    full_name: fullName,
    description: '',
    empty: repo.branches.size === 0,
    private: repo.private,
    fork: false,
    template: false,
    parent: null,
    mirror: false,
    size: 0,
    html_url: `${urls.web}/${fullName}`,
    url: `${urls.api}/repos/${fullName}`,
    ssh_url: `git@${new URL(urls.web).host}:${fullName}.git`,
    clone_url: repo.cloneUrl ?? `${urls.web}/${fullName}.git`,
    default_branch: repo.defaultBranch,
    archived: false,
    created_at: repo.created,
    updated_at: repo.created,
    permissions,
    has_pull_requests: true,
    internal: false,
    object_format_name: 'sha1',
  };
}

/** A commit as webhooks and the branches API show it (`id`, not `sha`). */
export function renderPayloadCommit(state: ForgeState, repo: Repo, commit: Commit, urls: GiteaUrls) {
  const author = state.user(commit.author);
  const person = { name: commit.author, email: author?.primaryEmail ?? '', username: author?.login ?? '' };
  return {
    id: commit.sha,
    message: `${commit.message}\n`,
    url: `${urls.web}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    author: person,
    committer: person,
    verification: null,
    timestamp: commit.timestamp,
    added: [],
    removed: [],
    modified: [...commit.tree.keys()],
  };
}

/** `GET /repos/{o}/{r}/git/commits/{sha}`: accounts matched by email, or null. */
export function renderCommit(state: ForgeState, repo: Repo, commit: Commit, urls: GiteaUrls) {
  const author = state.user(commit.author);
  const person = { name: commit.author, email: author?.primaryEmail ?? '', date: commit.timestamp };
  const api = `${urls.api}/repos/${repo.owner}/${repo.name}`;
  const account = author === undefined ? null : renderUser(author, urls);
  return {
    url: `${api}/git/commits/${commit.sha}`,
    sha: commit.sha,
    created: commit.timestamp,
    html_url: `${urls.web}/${repo.owner}/${repo.name}/commit/${commit.sha}`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: person,
      committer: person,
      message: `${commit.message}\n`,
      tree: { url: `${api}/git/trees/${commit.sha}`, sha: commit.sha },
    },
    author: account,
    committer: account,
    parents:
      commit.parent === undefined ? [] : [{ url: `${api}/git/commits/${commit.parent}`, sha: commit.parent }],
  };
}
