import type { Commit, ForgeState, Repo, User } from '../forge/state.js';
import type { GitLabUrls } from './env.js';

export function renderUser(user: User, urls: GitLabUrls) {
  return {
    id: user.id,
    username: user.login,
    name: user.login,
    state: 'active',
    avatar_url: `${urls.web}/uploads/-/system/user/avatar/${user.id}/avatar.png`,
    web_url: `${urls.web}/${user.login}`,
    public_email: '',
    email: user.primaryEmail,
    commit_email: user.primaryEmail,
  };
}

/** The user's access level on a project: 40 for the owner of a personal project, as GitLab shows it. */
export function levelOf(state: ForgeState, repo: Repo, login: string | undefined): number {
  const who = login?.toLowerCase();
  if (who === undefined) return 0;
  if (who === repo.owner.toLowerCase() || repo.admins.has(who)) return 40;
  if (repo.writers.has(who)) return 30;
  if (repo.readers.has(who)) return 20;
  return 0;
}

/** `inherited`: the user's access comes from a parent group, which GitLab's project answer does not show. */
export function renderProject(
  state: ForgeState,
  repo: Repo,
  urls: GitLabUrls,
  login: string | undefined,
  inherited = false,
) {
  const path = `${repo.owner}/${repo.name}`;
  const level = levelOf(state, repo, login);
  const personal = state.user(repo.owner) !== undefined;
  return {
    id: repo.id,
    name: repo.name,
    path: repo.name,
    path_with_namespace: path,
    name_with_namespace: `${repo.owner} / ${repo.name}`,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? 'private' : 'public',
    http_url_to_repo: repo.cloneUrl ?? `${urls.web}/${path}.git`,
    ssh_url_to_repo: `git@${new URL(urls.web).host}:${path}.git`,
    web_url: `${urls.web}/${path}`,
    avatar_url: null,
    archived: false,
    namespace: {
      id: state.ownerId(repo.owner),
      name: repo.owner,
      path: repo.owner,
      kind: personal ? 'user' : 'group',
      full_path: repo.owner,
    },
    permissions: {
      project_access: level === 0 || inherited ? null : { access_level: level, notification_level: 3 },
      group_access: null,
    },
  };
}

/** A commit as `GET …/repository/commits/:sha` and branches show it: names and emails, no account. */
export function renderCommit(state: ForgeState, repo: Repo, commit: Commit, urls: GitLabUrls) {
  const email = state.user(commit.author)?.primaryEmail ?? `${commit.author}@example.com`;
  return {
    id: commit.sha,
    short_id: commit.sha.slice(0, 8),
    title: commit.message.split('\n')[0] ?? '',
    message: `${commit.message}\n`,
    author_name: commit.author,
    author_email: email,
    authored_date: commit.timestamp,
    committer_name: commit.author,
    committer_email: email,
    committed_date: commit.timestamp,
    created_at: commit.timestamp,
    parent_ids: commit.parent === undefined ? [] : [commit.parent],
    web_url: `${urls.web}/${repo.owner}/${repo.name}/-/commit/${commit.sha}`,
  };
}

/** A project as webhooks carry it: `namespace` is a display name, visibility a number. */
export function hookProject(repo: Repo, urls: GitLabUrls) {
  const path = `${repo.owner}/${repo.name}`;
  return {
    id: repo.id,
    name: repo.name,
    description: '',
    web_url: `${urls.web}/${path}`,
    avatar_url: null,
    git_ssh_url: `git@${new URL(urls.web).host}:${path}.git`,
    git_http_url: repo.cloneUrl ?? `${urls.web}/${path}.git`,
    namespace: repo.owner,
    visibility_level: repo.private ? 0 : 20,
    path_with_namespace: path,
    default_branch: repo.defaultBranch,
    ci_config_path: null,
  };
}
