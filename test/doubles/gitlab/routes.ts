import type { Context, Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import { message, type Env, type GitLabRoute } from './env.js';
import { levelOf, renderCommit, renderProject, renderUser } from './render.js';

/**
 * Users, groups and projects of GitLab's REST API v4: `GET /user`, `GET /avatar?email=`,
 * `GET /groups` (the user's), `GET /groups/:id` and `…/members/all/:user_id` (404 for non-members),
 * `GET /projects?membership=true` (paged: `per_page` up to 100, `X-Next-Page`, `X-Total`, `Link`),
 * `GET /projects/:id` (the URL-encoded full path), `…/members/all/:user_id`,
 * `…/repository/files/:path/raw?ref=` (404 "File Not Found" or "Commit Not Found"),
 * `…/repository/commits/:sha` and `…/repository/branches/:branch`.
 */
export function routes(env: Env): GitLabRoute[] {
  const project = '/projects/{id}';
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) => withProject(env, ctx, then);
  return [
    {
      method: 'GET',
      pattern: '/user',
      handler: (ctx) => ({ status: 200, body: renderUser(me(env, ctx), env.urls) }),
    },
    { method: 'GET', pattern: '/avatar', handler: (ctx) => avatar(env, ctx) },
    { method: 'GET', pattern: '/groups', handler: (ctx) => groups(env, ctx) },
    { method: 'GET', pattern: '/groups/{id}', handler: (ctx) => group(env, ctx) },
    { method: 'GET', pattern: '/groups/{id}/members/all/{user}', handler: (ctx) => groupMember(env, ctx) },
    { method: 'GET', pattern: '/projects', handler: (ctx) => projects(env, ctx) },
    {
      method: 'GET',
      pattern: project,
      handler: read((repo, ctx) => ({
        status: 200,
        body: renderProject(env.state, repo, env.urls, ctx.login, inheritedIn(env, repo)),
      })),
    },
    {
      method: 'GET',
      pattern: `${project}/members/all/{user}`,
      handler: read((repo, ctx) => projectMember(env, repo, ctx)),
    },
    {
      method: 'GET',
      pattern: `${project}/repository/files/{path}/raw`,
      handler: read((repo, ctx) => raw(repo, ctx)),
    },
    {
      method: 'GET',
      pattern: `${project}/repository/commits/{sha}`,
      handler: read((repo, ctx) => commit(env, repo, ctx)),
    },
    {
      method: 'GET',
      pattern: `${project}/repository/branches/{branch}`,
      handler: read((repo, ctx) => branch(env, repo, ctx)),
    },
  ];
}

function me(env: Env, ctx: Context) {
  const user = env.state.user(ctx.login ?? '');
  if (user === undefined) throw new Error('GitLab double: a route without its user');
  return user;
}

/** The project of the path (its id, or its full path) when the caller may read it; else 404. */
export function withProject(env: Env, ctx: Context, then: (repo: Repo, ctx: Context) => Reply): Reply {
  const id = ctx.params.id ?? '';
  const repo = /^\d+$/.test(id)
    ? [...env.state.repos.values()].find((r) => String(r.id) === id)
    : env.state.repos.get(id.toLowerCase());
  if (repo === undefined || !env.state.permissions(repo, ctx.login).pull)
    return message(404, '404 Project Not Found');
  return then(repo, ctx);
}

/** A page of a list as GitLab answers it: `page`, `per_page` (20 by default, at most 100), X-* headers and Link. */
export function paginate<T>(env: Env, ctx: Context, items: readonly T[]): Reply {
  const perPage = Math.min(100, Math.max(1, Number(ctx.url.searchParams.get('per_page') ?? 20) || 20));
  const page = Math.max(1, Number(ctx.url.searchParams.get('page') ?? 1) || 1);
  const pages = Math.max(1, Math.ceil(items.length / perPage));
  const link = (n: number, rel: string) => {
    const query = new URLSearchParams(ctx.url.searchParams);
    query.set('page', String(n));
    query.set('per_page', String(perPage));
    return `<${env.urls.api}${ctx.path}?${query.toString()}>; rel="${rel}"`;
  };
  const rels = [
    ...(page > 1 ? [link(page - 1, 'prev')] : []),
    ...(page < pages ? [link(page + 1, 'next')] : []),
    link(1, 'first'),
    link(pages, 'last'),
  ];
  return {
    status: 200,
    body: items.slice((page - 1) * perPage, page * perPage),
    headers: {
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < pages ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(items.length),
      'x-total-pages': String(pages),
      link: rels.join(', '),
    },
  };
}

function groupId(env: Env, path: string): number {
  const key = path.toLowerCase();
  let id = env.groups.get(key);
  if (id === undefined) {
    id = 70_000 + env.groups.size;
    env.groups.set(key, id);
  }
  return id;
}

function renderGroup(env: Env, path: string) {
  const name = path.split('/').at(-1) ?? path;
  return {
    id: groupId(env, path),
    name,
    path: name,
    full_name: path.replaceAll('/', ' / '),
    full_path: path,
    parent_id: null,
    visibility: 'private',
    web_url: `${env.urls.web}/groups/${path}`,
  };
}

function groups(env: Env, ctx: Context): Reply {
  return paginate(
    env,
    ctx,
    me(env, ctx).orgs.map((path) => renderGroup(env, path)),
  );
}

/** Every group some user belongs to, found by id or full path (groups exist only as memberships here). */
function findGroup(env: Env, id: string): string | undefined {
  const all = [...env.state.users.values()].flatMap((user) => user.orgs);
  return all.find((path) =>
    /^\d+$/.test(id) ? String(groupId(env, path)) === id : path.toLowerCase() === id.toLowerCase(),
  );
}

function group(env: Env, ctx: Context): Reply {
  const path = findGroup(env, ctx.params.id ?? '');
  const mine = me(env, ctx).orgs.some((org) => org.toLowerCase() === path?.toLowerCase());
  return path === undefined || !mine
    ? message(404, '404 Group Not Found')
    : { status: 200, body: renderGroup(env, path) };
}

function groupMember(env: Env, ctx: Context): Reply {
  const path = findGroup(env, ctx.params.id ?? '');
  const user = [...env.state.users.values()].find((u) => String(u.id) === ctx.params.user);
  if (path === undefined) return message(404, '404 Group Not Found');
  if (user === undefined || !user.orgs.some((org) => org.toLowerCase() === path.toLowerCase()))
    return message(404, '404 Not found');
  const level = user.orgAdmin.includes(path.toLowerCase()) ? 50 : 30;
  return { status: 200, body: { ...renderUser(user, env.urls), access_level: level, expires_at: null } };
}

function projects(env: Env, ctx: Context): Reply {
  const login = ctx.login ?? '';
  const mine = [...env.state.repos.values()].filter((repo) => env.state.isAffiliated(repo, login));
  return paginate(
    env,
    ctx,
    mine.map((repo) => renderProject(env.state, repo, env.urls, login, inheritedIn(env, repo))),
  );
}

function projectMember(env: Env, repo: Repo, ctx: Context): Reply {
  const user = [...env.state.users.values()].find((u) => String(u.id) === ctx.params.user);
  const level = user === undefined ? 0 : levelOf(env.state, repo, user.login);
  return level === 0 || user === undefined
    ? message(404, '404 Not found')
    : { status: 200, body: { ...renderUser(user, env.urls), access_level: level, expires_at: null } };
}

function avatar(env: Env, ctx: Context): Reply {
  const email = (ctx.url.searchParams.get('email') ?? '').toLowerCase();
  const user = [...env.state.users.values()].find((u) => u.primaryEmail.toLowerCase() === email);
  const url =
    user === undefined
      ? `https://www.gravatar.com/avatar/${email.length}?s=80&d=identicon`
      : renderUser(user, env.urls).avatar_url;
  return { status: 200, body: { avatar_url: url } };
}

/** A branch, a tag or a full sha. */
function resolve(repo: Repo, ref: string) {
  return repo.commits.get(repo.branches.get(ref) ?? repo.tags.get(ref) ?? ref);
}

function raw(repo: Repo, ctx: Context): Reply {
  const found = resolve(repo, ctx.url.searchParams.get('ref') ?? repo.defaultBranch);
  if (found === undefined) return message(404, '404 Commit Not Found');
  const content = found.tree.get(ctx.params.path ?? '');
  if (content === undefined) return message(404, '404 File Not Found');
  return {
    status: 200,
    text: content,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-gitlab-commit-id': found.sha },
  };
}

function commit(env: Env, repo: Repo, ctx: Context): Reply {
  const found = resolve(repo, ctx.params.sha ?? '');
  return found === undefined
    ? message(404, '404 Commit Not Found')
    : { status: 200, body: renderCommit(env.state, repo, found, env.urls) };
}

function branch(env: Env, repo: Repo, ctx: Context): Reply {
  const name = ctx.params.branch ?? '';
  const head = repo.commits.get(repo.branches.get(name) ?? '');
  if (head === undefined) return message(404, '404 Branch Not Found');
  return {
    status: 200,
    body: {
      name,
      merged: false,
      protected: false,
      default: name === repo.defaultBranch,
      can_push: true,
      web_url: `${env.urls.web}/${repo.owner}/${repo.name}/-/tree/${name}`,
      commit: renderCommit(env.state, repo, head, env.urls),
    },
  };
}

const inheritedIn = (env: Env, repo: Repo) => env.inherited.has(`${repo.owner}/${repo.name}`.toLowerCase());
