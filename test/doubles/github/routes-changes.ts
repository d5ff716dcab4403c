import type { Route } from '../forge/router.js';
import type { Env } from './env.js';
import { error, paginate } from './http.js';
import { visibleRepo } from './routes-repos.js';
import type { Commit } from './state.js';

/** "The response includes a maximum of 300 files" (docs: rest/commits/commits, compare two commits). */
const COMPARE_MAX_FILES = 300;
/** "Responses include a maximum of 3000 files" (docs: rest/pulls/pulls, list pull request files). */
const PULL_MAX_FILES = 3000;

/** The files whose content differs between two trees, as GitHub lists them (no rename detection here). */
function diff(base: Commit, head: Commit): { filename: string; status: string }[] {
  const files: { filename: string; status: string }[] = [];
  for (const [path, content] of head.tree) {
    const before = base.tree.get(path);
    if (before === undefined) files.push({ filename: path, status: 'added' });
    else if (before !== content) files.push({ filename: path, status: 'modified' });
  }
  for (const path of base.tree.keys())
    if (!head.tree.has(path)) files.push({ filename: path, status: 'removed' });
  return files.sort((a, b) => a.filename.localeCompare(b.filename));
}

/** Compare and pull request files (docs: rest/commits/commits#compare-two-commits, rest/pulls/pulls#list-pull-requests-files). */
export function changeRoutes(env: Env): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/compare/{basehead+}',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        const [baseRef = '', headRef = ''] = (ctx.params.basehead ?? '').split('...');
        const base = env.state.resolve(repo, baseRef);
        const head = env.state.resolve(repo, headRef);
        if (base === undefined || head === undefined) return error(404, 'Not Found');
        // Files are not paged (the commits are): at most 300 come back.
        return {
          status: 200,
          body: { status: 'ahead', files: diff(base, head).slice(0, COMPARE_MAX_FILES) },
        };
      },
    },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/pulls/{number}/files',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        const number = Number(ctx.params.number);
        const head = repo.commits.get(repo.pulls.get(number) ?? '');
        const base = repo.commits.get(env.pullBases.get(`${repo.id}#${number}`) ?? '');
        if (head === undefined || base === undefined) return error(404, 'Not Found');
        return paginate(ctx, diff(base, head).slice(0, PULL_MAX_FILES), env.urls.api);
      },
    },
  ];
}
