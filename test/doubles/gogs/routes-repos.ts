import type { Context, Reply } from '../forge/router.js';
import type { Commit, Repo } from '../forge/state.js';
import { empty, htmlNotFound, type Env, type GogsRoute } from './env.js';
import { renderCommit, renderPayloadCommit, renderRepo } from './render.js';

/**
 * Repositories (gogs.io API reference, "Repositories"): `GET /user/repos` (owned and shared, one
 * answer, no paging), `GET /repos/{o}/{r}` (a repository the caller cannot see is 404 with an empty
 * body), `GET …/raw/{ref}/{path}` (a full sha or a short branch or tag name; an unknown ref is the HTML
 * 404 page, a missing file an empty 404), `GET …/commits/{sha}` (or the bare sha with
 * `Accept: application/vnd.gogs.sha`) and `GET …/branches/{branch}`.
 */
export function repoRoutes(env: Env): GogsRoute[] {
  const repo = '/repos/{owner}/{name}';
  return [
    { method: 'GET', pattern: '/user/repos', auth: 'token', handler: (ctx) => userRepos(env, ctx) },
    {
      method: 'GET',
      pattern: repo,
      auth: 'optional',
      handler: (ctx) => withRepo(env, ctx, (r) => oneRepo(env, ctx, r)),
    },
    {
      method: 'GET',
      pattern: `${repo}/raw/{rest+}`,
      auth: 'token',
      handler: (ctx) => withRepo(env, ctx, (r) => raw(r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/commits/{ref+}`,
      auth: 'token',
      handler: (ctx) => withRepo(env, ctx, (r) => commit(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/branches/{branch+}`,
      auth: 'token',
      handler: (ctx) => withRepo(env, ctx, (r) => branch(env, r, ctx)),
    },
  ];
}

/** The repository of the path, when the caller may read it; else Gogs' empty 404. */
export function withRepo(env: Env, ctx: Context, then: (repo: Repo) => Reply): Reply {
  const repo = env.state.repo(ctx.params.owner ?? '', ctx.params.name ?? '');
  if (repo === undefined || !env.state.permissions(repo, ctx.login).pull) return empty(404);
  return then(repo);
}

function permissionsOf(env: Env, repo: Repo, login: string | undefined) {
  const { admin, push, pull } = env.state.permissions(repo, login);
  return { admin, push, pull };
}

function userRepos(env: Env, ctx: Context): Reply {
  const login = ctx.login ?? '';
  const repos = [...env.state.repos.values()].filter((repo) => env.state.isAffiliated(repo, login));
  return {
    status: 200,
    body: repos.map((repo) => renderRepo(env.state, repo, env.urls, permissionsOf(env, repo, login))),
  };
}

function oneRepo(env: Env, ctx: Context, repo: Repo): Reply {
  return { status: 200, body: renderRepo(env.state, repo, env.urls, permissionsOf(env, repo, ctx.login)) };
}

/** A ref of `/raw/`: branch and tag names may have slashes, matched longest first; or a full sha. */
function splitRef(repo: Repo, rest: string): { commit: Commit; path: string } | undefined {
  const parts = rest.split('/');
  for (let cut = parts.length - 1; cut >= 1; cut--) {
    const ref = parts.slice(0, cut).join('/');
    const sha =
      repo.branches.get(ref) ?? repo.tags.get(ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
    const commit = sha === undefined ? undefined : repo.commits.get(sha);
    if (commit !== undefined) return { commit, path: parts.slice(cut).join('/') };
  }
  return undefined;
}

function raw(repo: Repo, ctx: Context): Reply {
  const found = splitRef(repo, ctx.params.rest ?? '');
  if (found === undefined) return htmlNotFound();
  const content = found.commit.tree.get(found.path);
  if (content === undefined) return empty(404);
  return { status: 200, text: content, headers: { 'content-type': 'text/plain; charset=utf-8' } };
}

function commit(env: Env, repo: Repo, ctx: Context): Reply {
  const found = env.state.resolve(repo, ctx.params.ref ?? '');
  if (found === undefined) return empty(404);
  if ((ctx.headers.accept ?? '').includes('application/vnd.gogs.sha')) {
    return { status: 200, text: found.sha, headers: { 'content-type': 'text/plain; charset=UTF-8' } };
  }
  return { status: 200, body: renderCommit(env.state, repo, found, env.urls) };
}

function branch(env: Env, repo: Repo, ctx: Context): Reply {
  const name = ctx.params.branch ?? '';
  const sha = repo.branches.get(name);
  const head = sha === undefined ? undefined : repo.commits.get(sha);
  if (head === undefined) return empty(404);
  return {
    status: 200,
    body: { name, commit: renderPayloadCommit(env.state, repo, head, env.urls, 'Not implemented') },
  };
}
