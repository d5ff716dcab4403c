/**
 * The JSON objects of Bitbucket Server's REST API 1.0 and of its webhook payloads: user, project,
 * repository (the http clone link carries the viewer's name, as the real server's does; ssh on port
 * 7999), commit (author/committer with user fields only when the email is a user's; epoch-ms
 * timestamps; 11-character displayId), branch and tag refs. Not modelled: avatars, `description`,
 * fork `origin`, annotated tags (`hash` is always null: every tag is lightweight).
 */
import type { Commit, Repo, User } from '../forge/state.js';
import { displayName, ensureProject } from './access.js';
import { atLeast, type Env, type Project } from './env.js';

/** A user as webhook payloads show it (no links). */
export function payloadUser(user: User) {
  const slug = user.login.toLowerCase();
  return {
    name: user.login,
    emailAddress: user.primaryEmail,
    id: user.id,
    displayName: displayName(user.login),
    active: true,
    slug,
    type: 'NORMAL',
  };
}

export function renderUser(env: Env, user: User) {
  const slug = user.login.toLowerCase();
  return { ...payloadUser(user), links: { self: [{ href: `${env.url}/users/${slug}` }] } };
}

export function renderProject(env: Env, project: Project) {
  const owner = project.owner === undefined ? undefined : env.state.user(project.owner);
  if (project.owner !== undefined)
    return {
      key: project.key,
      id: project.id,
      name: project.name,
      type: 'PERSONAL',
      ...(owner === undefined ? {} : { owner: renderUser(env, owner) }),
      links: { self: [{ href: `${env.url}/users/${project.owner}` }] },
    };
  return {
    key: project.key,
    id: project.id,
    name: project.name,
    public: false,
    type: 'NORMAL',
    links: { self: [{ href: `${env.url}/projects/${project.key}` }] },
  };
}

/** The web path of a repository: `/projects/KEY/repos/slug` or `/users/slug/repos/slug`. */
export function repoPath(env: Env, repo: Repo): string {
  const project = ensureProject(env, repo.owner);
  return project.owner === undefined
    ? `/projects/${project.key}/repos/${repo.name}`
    : `/users/${project.owner}/repos/${repo.name}`;
}

export function renderRepo(env: Env, repo: Repo, viewer: string | undefined) {
  const project = ensureProject(env, repo.owner);
  const scmPath = `${project.key.toLowerCase()}/${repo.name}.git`;
  const http = new URL(repo.cloneUrl ?? `${env.url}/scm/${scmPath}`);
  if (viewer !== undefined) http.username = encodeURIComponent(viewer.toLowerCase());
  return {
    slug: repo.name,
    id: repo.id,
    name: repo.name,
    hierarchyId: repo.id.toString(16).padStart(20, '0'),
    scmId: 'git',
    state: 'AVAILABLE',
    statusMessage: 'Available',
    forkable: true,
    project: renderProject(env, project),
    public: !repo.private,
    ...(atLeast(env, '8.0') ? { archived: false } : {}),
    links: {
      clone: [
        { href: http.href, name: 'http' },
        { href: `ssh://git@${new URL(env.url).hostname}:7999/${scmPath}`, name: 'ssh' },
      ],
      self: [{ href: `${env.url}${repoPath(env, repo)}/browse` }],
    },
  };
}

/** An author or committer: the user's fields when the login is a user, else name and email only. */
function person(env: Env, login: string) {
  const user = env.state.user(login);
  return user === undefined ? { name: login, emailAddress: `${login}@example.com` } : renderUser(env, user);
}

export function renderCommit(env: Env, commit: Commit) {
  const at = Date.parse(commit.timestamp);
  return {
    id: commit.sha,
    displayId: commit.sha.slice(0, 11),
    author: person(env, commit.author),
    authorTimestamp: at,
    committer: person(env, commit.author),
    committerTimestamp: at,
    message: commit.message,
    parents:
      commit.parent === undefined ? [] : [{ id: commit.parent, displayId: commit.parent.slice(0, 11) }],
  };
}

export function renderBranch(repo: Repo, name: string, sha: string) {
  return {
    id: `refs/heads/${name}`,
    displayId: name,
    type: 'BRANCH',
    latestCommit: sha,
    latestChangeset: sha,
    isDefault: name === repo.defaultBranch,
  };
}

export function renderTag(name: string, sha: string) {
  return {
    id: `refs/tags/${name}`,
    displayId: name,
    type: 'TAG',
    latestCommit: sha,
    latestChangeset: sha,
    hash: null,
  };
}
