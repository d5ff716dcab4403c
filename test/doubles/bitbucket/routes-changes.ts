/**
 * What changed, as Bitbucket Cloud's REST API 2.0 tells it (API reference: Commits "Compare two
 * commit diff stats", Pullrequests "Get the diff stat for a pull request"; schema
 * `paginated_diffstats`):
 *
 * - `GET /repositories/{ws}/{slug}/diffstat/{spec}`: `spec` is one commit (compared with its first
 *   parent) or `first..second`, the first holding the changes and the second the state compared
 *   with. `topic` (true when absent) compares the first with its merge base with the second;
 *   `topic=false` compares the two commits as they are. `renames` (true when absent) pairs a removed
 *   and an added file of the same content as `renamed`. Paged: `pagelen` 500 by default, 5,000 at
 *   most, `page`, `next`. An unknown commit is 404.
 * - `GET …/pullrequests/{id}/diffstat`: 302 to the diffstat of the source commit with the
 *   destination branch's head (`topic=true`); an unknown id is 404.
 */
import { ancestry, mergeBase, pullEnds, treeDiff, type FileChange } from '../forge/changes.js';
import type { Context, Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import { error, paginate, type BitbucketRoute, type Env } from './env.js';
import { resolve, withRepo } from './routes.js';

export function changeRoutes(env: Env): BitbucketRoute[] {
  const repo = '/repositories/{ws}/{slug}';
  return [
    {
      method: 'GET',
      pattern: `${repo}/diffstat/{spec+}`,
      handler: (ctx) => withRepo(env, ctx, (r) => diffstat(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/pullrequests/{id}/diffstat`,
      handler: (ctx) => withRepo(env, ctx, (r) => pullDiffstat(env, r, ctx)),
    },
  ];
}

function diffstat(env: Env, repo: Repo, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const [firstRev = '', secondRev] = (ctx.params.spec ?? '').split('..');
  const first = resolve(repo, firstRev);
  const second = secondRev === undefined ? undefined : resolve(repo, secondRev);
  if (first === undefined) return error(404, `Commit not found: ${firstRev}`);
  if (secondRev !== undefined && second === undefined) return error(404, `Commit not found: ${secondRev}`);
  const base =
    second === undefined
      ? ancestry(repo, first)[1]
      : query.get('topic') === 'false'
        ? second
        : mergeBase(repo, second, first);
  const changes = treeDiff(base, first, query.get('renames') !== 'false');
  const file = (path: string, sha: string | undefined) => ({
    path,
    escaped_path: path,
    type: 'commit_file',
    links: {
      self: { href: `${env.urls.api}/repositories/${repo.owner}/${repo.name}/src/${sha ?? ''}/${path}` },
    },
  });
  const entries = changes.map((change: FileChange) => ({
    type: 'diffstat',
    status: change.status,
    lines_added: change.status === 'removed' ? 0 : 1,
    lines_removed: change.status === 'added' ? 0 : 1,
    old: change.status === 'added' ? null : file(change.oldPath ?? change.path, base?.sha),
    new: change.status === 'removed' ? null : file(change.path, first.sha),
  }));
  return paginate(env, ctx, entries, { pagelen: 500, max: 5000 });
}

function pullDiffstat(env: Env, repo: Repo, ctx: Context): Reply {
  const id = Number(ctx.params.id);
  const ends = pullEnds(repo, id);
  const destination = repo.branches.get(repo.defaultBranch);
  if (ends === undefined || destination === undefined)
    return error(404, 'No PullRequest matches the given query.');
  const spec = `${ends.head.sha}..${destination}`;
  return {
    status: 302,
    headers: {
      location: `${env.urls.api}/repositories/${repo.owner}/${repo.name}/diffstat/${spec}?from_pullrequest_id=${id}&topic=true`,
    },
  };
}
