import type { Commit, GitHubState, Hook, Repo, Status, User } from './state.js';

/** The double's addresses, to write the URLs GitHub puts into its JSON. */
export interface Urls {
  /** The web server (html_url, clone_url). */
  web: string;
  /** The REST API root. */
  api: string;
}

/** A user as a "simple user" (docs: rest/users/users). */
export function simpleUser(user: User, urls: Urls) {
  return {
    login: user.login,
    id: user.id,
    node_id: Buffer.from(`04:User${user.id}`).toString('base64'),
    avatar_url: `${urls.web}/avatars/u/${user.id}?v=4`,
    gravatar_id: '',
    url: `${urls.api}/users/${user.login}`,
    html_url: `${urls.web}/${user.login}`,
    type: 'User',
    site_admin: false,
  };
}

/** `GET /user` for the authenticated user (docs: rest/users/users#get-the-authenticated-user). */
export function privateUser(user: User, urls: Urls) {
  return {
    ...simpleUser(user, urls),
    name: user.login,
    company: null,
    blog: '',
    location: null,
    email: user.publicEmail,
    bio: null,
    public_repos: 0,
    followers: 0,
    following: 0,
    created_at: '2020-01-01T00:00:00Z',
    updated_at: '2020-01-01T00:00:00Z',
  };
}

/** An owner that is no registered user is an organization. */
export function owner(state: GitHubState, login: string, urls: Urls) {
  const user = state.user(login);
  if (user !== undefined) return simpleUser(user, urls);
  return {
    ...simpleUser(
      { id: state.orgId(login), login, publicEmail: null, primaryEmail: '', orgs: [], orgAdmin: [] },
      urls,
    ),
    type: 'Organization',
  };
}

/** An organization as `GET /user/orgs` lists it (docs: rest/orgs/orgs, "organization simple"). */
export function organization(login: string, id: number, urls: Urls) {
  const url = `${urls.api}/orgs/${login}`;
  return {
    login,
    id,
    node_id: Buffer.from(`012:Organization${id}`).toString('base64'),
    url,
    repos_url: `${url}/repos`,
    events_url: `${url}/events`,
    hooks_url: `${url}/hooks`,
    issues_url: `${url}/issues`,
    members_url: `${url}/members{/member}`,
    public_members_url: `${url}/public_members{/member}`,
    avatar_url: `${urls.web}/avatars/o/${id}?v=4`,
    description: null,
  };
}

/** A full repository (docs: rest/repos/repos#get-a-repository), with `permissions` when a user asks. */
export function repository(state: GitHubState, repo: Repo, login: string | undefined, urls: Urls) {
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${urls.api}/repos/${fullName}`;
  return {
    id: repo.id,
    node_id: Buffer.from(`010:Repository${repo.id}`).toString('base64'),
    name: repo.name,
    full_name: fullName,
    private: repo.private,
    owner: owner(state, repo.owner, urls),
    html_url: `${urls.web}/${fullName}`,
    description: null,
    fork: false,
    url: api,
    hooks_url: `${api}/hooks`,
    statuses_url: `${api}/statuses/{sha}`,
    contents_url: `${api}/contents/{+path}`,
    git_url: `git://${new URL(urls.web).host}/${fullName}.git`,
    ssh_url: `git@${new URL(urls.web).hostname}:${fullName}.git`,
    clone_url: repo.cloneUrl ?? `${urls.web}/${fullName}.git`,
    default_branch: repo.defaultBranch,
    visibility: repo.private ? 'private' : 'public',
    archived: false,
    disabled: false,
    created_at: repo.created,
    updated_at: repo.created,
    pushed_at: repo.created,
    ...(login === undefined ? {} : { permissions: state.permissions(repo, login) }),
  };
}

/** A branch (docs: rest/branches/branches#get-a-branch). */
export function branch(repo: Repo, name: string, sha: string, urls: Urls) {
  const api = `${urls.api}/repos/${repo.owner}/${repo.name}`;
  return {
    name,
    commit: { sha, url: `${api}/commits/${sha}` },
    _links: { self: `${api}/branches/${name}`, html: `${urls.web}/${repo.owner}/${repo.name}/tree/${name}` },
    protected: false,
  };
}

/** A commit (docs: rest/commits/commits#get-a-commit), without its diff. */
export function commit(state: GitHubState, repo: Repo, c: Commit, urls: Urls) {
  const api = `${urls.api}/repos/${repo.owner}/${repo.name}`;
  // GitHub links the commit to the account its email belongs to; an unknown author has none (null).
  const account = state.user(c.author);
  const email = account?.primaryEmail || `${c.author}@users.noreply.github.com`;
  const person = { name: c.author, email, date: c.timestamp };
  return {
    sha: c.sha,
    url: `${api}/commits/${c.sha}`,
    html_url: `${urls.web}/${repo.owner}/${repo.name}/commit/${c.sha}`,
    commit: { message: c.message, author: person, committer: person },
    author: account === undefined ? null : simpleUser(account, urls),
    committer: account === undefined ? null : simpleUser(account, urls),
    parents: c.parent === undefined ? [] : [{ sha: c.parent, url: `${api}/commits/${c.parent}` }],
  };
}

/** A webhook as the API shows it: the secret is masked (docs: rest/repos/webhooks). */
export function hook(repo: Repo, h: Hook, urls: Urls) {
  const api = `${urls.api}/repos/${repo.owner}/${repo.name}/hooks/${h.id}`;
  return {
    type: 'Repository',
    id: h.id,
    name: 'web',
    active: h.active,
    events: h.events,
    config: {
      url: h.url,
      content_type: h.contentType,
      insecure_ssl: h.insecureSsl,
      ...(h.secret === '' ? {} : { secret: '********' }),
    },
    updated_at: h.updated,
    created_at: h.created,
    url: api,
    test_url: `${api}/test`,
    ping_url: `${api}/pings`,
    deliveries_url: `${api}/deliveries`,
    last_response: { code: null, status: 'unused', message: null },
  };
}

/** A commit status (docs: rest/commits/statuses). */
export function status(state: GitHubState, s: Status, urls: Urls) {
  const creator = state.user(s.creator);
  return {
    id: s.id,
    url: `${urls.api}/statuses/${s.id}`,
    state: s.state,
    description: s.description,
    target_url: s.target_url,
    context: s.context,
    created_at: s.created,
    updated_at: s.created,
    creator: creator === undefined ? null : simpleUser(creator, urls),
  };
}
