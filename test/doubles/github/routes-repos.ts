import type { Env } from './env.js';
import { error, notFound, type Context, type Reply, type Route } from './http.js';
import { branch, commit, repository } from './render.js';
import type { Commit, Repo } from './state.js';

/**
 * The repository as the caller may see it: private repositories are 404 to those without access,
 * as GitHub hides their existence.
 */
export function visibleRepo(env: Env, ctx: Context): Repo | Reply {
  const repo = env.state.repo(ctx.params.owner ?? '', ctx.params.repo ?? '');
  if (repo === undefined || !env.state.permissions(repo, ctx.login).pull) return notFound();
  return repo;
}

/** Files over 1 MB come without content from the contents API (docs: rest/repos/contents). */
const LARGE_FILE = 1024 * 1024;

/** Repositories, contents, branches and commits (docs: rest/repos, rest/branches, rest/commits). */
export function repoRoutes(env: Env): Route[] {
  const { state, urls } = env;
  return [
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        return 'status' in repo ? repo : { status: 200, body: repository(state, repo, ctx.login, urls) };
      },
    },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/branches/{branch+}',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        const name = ctx.params.branch ?? '';
        const sha = repo.branches.get(name);
        return sha === undefined
          ? error(404, 'Branch not found')
          : { status: 200, body: branch(repo, name, sha, urls) };
      },
    },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/commits/{ref+}',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        const ref = ctx.params.ref ?? '';
        const found = commitAt(env, repo, ref);
        if (found === undefined) return error(422, `No commit found for SHA: ${ref}`);
        return { status: 200, body: commit(state, repo, found, urls) };
      },
    },
    { method: 'GET', pattern: '/repos/{owner}/{repo}/contents', handler: (ctx) => contents(env, ctx) },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/contents/{path+}',
      handler: (ctx) => contents(env, ctx),
    },
  ];
}

/** A sha, branch or tag name, or `heads/<branch>` / `tags/<tag>`, which name only a branch / a tag. */
function commitAt(env: Env, repo: Repo, ref: string): Commit | undefined {
  const branch = /^heads\/(.+)$/.exec(ref)?.[1];
  if (branch !== undefined) return repo.commits.get(repo.branches.get(branch) ?? '');
  const tag = /^tags\/(.+)$/.exec(ref)?.[1];
  if (tag !== undefined) return repo.commits.get(repo.tags.get(tag) ?? '');
  return env.state.resolve(repo, ref);
}

/** `GET /repos/{o}/{r}/contents/{path}?ref=`: a file as base64 (wrapped like GitHub's), a directory as a list. */
function contents(env: Env, ctx: Context): Reply {
  const repo = visibleRepo(env, ctx);
  if ('status' in repo) return repo;
  const ref = ctx.url.searchParams.get('ref') ?? repo.defaultBranch;
  const at = env.state.resolve(repo, ref);
  if (at === undefined) return error(404, `No commit found for the ref ${ref}`);
  const path = (ctx.params.path ?? '').replace(/\/+$/, '');
  const api = `${env.urls.api}/repos/${repo.owner}/${repo.name}/contents`;
  const file = at.tree.get(path);
  if (file !== undefined) {
    const bytes = Buffer.from(file, 'utf8');
    if (/vnd\.github(\.v3)?\.raw/.test(ctx.headers.accept ?? '')) {
      return {
        status: 200,
        text: file,
        headers: { 'content-type': 'application/vnd.github.raw; charset=utf-8' },
      };
    }
    const large = bytes.length > LARGE_FILE;
    const encoded = large ? '' : (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n';
    return {
      status: 200,
      body: {
        type: 'file',
        encoding: large ? 'none' : 'base64',
        size: bytes.length,
        name: path.split('/').pop(),
        path,
        content: encoded,
        sha: at.sha,
        url: `${api}/${path}?ref=${ref}`,
        download_url: `${env.urls.web}/${repo.owner}/${repo.name}/raw/${ref}/${path}`,
      },
    };
  }
  const prefix = path === '' ? '' : `${path}/`;
  const entries = new Set<string>();
  for (const name of at.tree.keys()) {
    if (name.startsWith(prefix)) entries.add(name.slice(prefix.length).split('/')[0] ?? '');
  }
  if (entries.size === 0) return notFound();
  const list = [...entries].sort().map((name) => {
    const full = `${prefix}${name}`;
    return { type: at.tree.has(full) ? 'file' : 'dir', name, path: full, url: `${api}/${full}?ref=${ref}` };
  });
  return { status: 200, body: list };
}
