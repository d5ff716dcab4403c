import type { Context, Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import { error, notFound, type Env, type GiteaRoute } from './env.js';
import { paginate } from './paginate.js';
import { renderCommit, renderPayloadCommit, renderRepo } from './render.js';

/**
 * Repositories: `GET /user/repos` (paged), `GET /repos/{o}/{r}` (404 to a user who cannot see it),
 * `GET …/raw/{path}?ref=` (a branch, a tag, or a full sha), `GET …/git/commits/{sha}` (422 for what is
 * no ref name, 404 for an unknown commit), `GET …/branches/{branch}` (slashes taken as they are).
 */
export function repoRoutes(env: Env): GiteaRoute[] {
  const repo = '/repos/{owner}/{name}';
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) => withRepo(env, ctx, then);
  return [
    { method: 'GET', pattern: '/user/repos', auth: 'token', handler: (ctx) => userRepos(env, ctx) },
    {
      method: 'GET',
      pattern: repo,
      auth: 'optional',
      handler: read((r, ctx) => ({ status: 200, body: repoOf(env, r, ctx) })),
    },
    {
      method: 'GET',
      pattern: `${repo}/raw/{path+}`,
      auth: 'optional',
      handler: read((r, ctx) => raw(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/git/commits/{sha}`,
      auth: 'optional',
      handler: read((r, ctx) => commit(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/branches/{branch+}`,
      auth: 'optional',
      handler: read((r, ctx) => branch(env, r, ctx)),
    },
  ];
}

/** The repository of the path when the caller may read it; else Gitea's 404. */
export function withRepo(env: Env, ctx: Context, then: (repo: Repo, ctx: Context) => Reply): Reply {
  const repo = env.state.repo(ctx.params.owner ?? '', ctx.params.name ?? '');
  if (repo === undefined || !env.state.permissions(repo, ctx.login).pull) return notFound(env);
  return then(repo, ctx);
}

export function permissionsOf(env: Env, repo: Repo, login: string | undefined) {
  const { admin, push, pull } = env.state.permissions(repo, login);
  return { admin, push, pull };
}

const repoOf = (env: Env, repo: Repo, ctx: Context) =>
  renderRepo(env.state, repo, env.urls, permissionsOf(env, repo, ctx.login));

function userRepos(env: Env, ctx: Context): Reply {
  const login = ctx.login ?? '';
  const repos = [...env.state.repos.values()].filter((repo) => env.state.isAffiliated(repo, login));
  return paginate(
    ctx,
    repos.map((repo) => repoOf(env, repo, ctx)),
    env.urls.api,
  );
}

/** Gitea resolves `ref` as a branch, then a tag, then a full-length sha only. */
function resolveRef(repo: Repo, ref: string): string | undefined {
  const sha = repo.branches.get(ref) ?? repo.tags.get(ref) ?? (/^[0-9a-f]{40}$/.test(ref) ? ref : undefined);
  return sha !== undefined && repo.commits.has(sha) ? sha : undefined;
}

function raw(env: Env, repo: Repo, ctx: Context): Reply {
  const ref = ctx.url.searchParams.get('ref') ?? repo.defaultBranch;
  const sha = resolveRef(repo, ref);
  if (sha === undefined) return notFound(env, `ref ${ref} not found`);
  const content = repo.commits.get(sha)?.tree.get(ctx.params.path ?? '');
  if (content === undefined)
    return notFound(env, `object does not exist [id: , rel_path: ${ctx.params.path ?? ''}]`);
  return {
    status: 200,
    text: content,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'x-gitea-object-type': 'file' },
  };
}

function commit(env: Env, repo: Repo, ctx: Context): Reply {
  const sha = ctx.params.sha ?? '';
  if (!/^[A-Za-z0-9._/-]+$/.test(sha) || sha.includes('..'))
    return error(env, 422, `no valid ref or sha: ${sha}`);
  const found = repo.commits.get(resolveRef(repo, sha) ?? '');
  if (found === undefined) return notFound(env, `object does not exist [id: ${sha}, rel_path: ]`);
  return { status: 200, body: renderCommit(env.state, repo, found, env.urls) };
}

function branch(env: Env, repo: Repo, ctx: Context): Reply {
  const name = ctx.params.branch ?? '';
  const head = repo.commits.get(repo.branches.get(name) ?? '');
  if (head === undefined) return notFound(env, `branch does not exist [name: ${name}]`);
  return {
    status: 200,
    body: {
      name,
      commit: renderPayloadCommit(env.state, repo, head, env.urls),
      protected: false,
      required_approvals: 0,
      enable_status_check: false,
      status_check_contexts: [],
      user_can_push: env.state.permissions(repo, ctx.login).push,
      user_can_merge: env.state.permissions(repo, ctx.login).push,
      effective_branch_protection_name: '',
    },
  };
}
