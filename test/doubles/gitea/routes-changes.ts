/**
 * What changed, as Gitea's API v1 tells it (swagger `repoCompareDiff` and `repoGetPullRequestFiles`;
 * routers/api/v1/repo/compare.go and pull.go, services/convert `ToCommit` and `ToChangedFile`):
 *
 * - `GET /repos/{o}/{r}/compare/{basehead}` (`base...head`, or `base..head`): `total_commits` and
 *   every commit `head` has and `base` has not, newest first, not paged; each with the `files` it
 *   touched against its parent (`added`, `removed`, `modified`: git's `--no-renames`) unless
 *   `files=false`. An unknown base or head is 404.
 * - `GET /repos/{o}/{r}/pulls/{index}/files`: the diff of the pull request's head with its merge
 *   base, renames found (`renamed` with `previous_filename`), paged like every Gitea list (`page`,
 *   `limit` 30 by default and 50 at most, `Link`, `X-Total-Count`); 404 for an unknown index.
 */
import { ancestry, commitsBetween, pullEnds, treeDiff, type FileChange } from '../forge/changes.js';
import type { Context, Reply } from '../forge/router.js';
import type { Commit, Repo } from '../forge/state.js';
import { notFound, type Env, type GiteaRoute } from './env.js';
import { paginate } from './paginate.js';
import { renderCommit } from './render.js';
import { withRepo } from './routes-repos.js';

export function changeRoutes(env: Env): GiteaRoute[] {
  const repo = '/repos/{owner}/{name}';
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) => withRepo(env, ctx, then);
  return [
    {
      method: 'GET',
      pattern: `${repo}/compare/{basehead+}`,
      auth: 'optional',
      handler: read((r, ctx) => compare(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/pulls/{index}/files`,
      auth: 'optional',
      handler: read((r, ctx) => pullFiles(env, r, ctx)),
    },
  ];
}

/** A branch, a tag, a sha, or a unique abbreviation of one. */
function resolve(repo: Repo, ref: string): Commit | undefined {
  const direct = repo.commits.get(repo.branches.get(ref) ?? repo.tags.get(ref) ?? ref);
  if (direct !== undefined || !/^[0-9a-f]{7,39}$/.test(ref)) return direct;
  const matches = [...repo.commits.keys()].filter((sha) => sha.startsWith(ref));
  return matches.length === 1 ? repo.commits.get(matches[0] ?? '') : undefined;
}

function compare(env: Env, repo: Repo, ctx: Context): Reply {
  const spec = ctx.params.basehead ?? '';
  const parts = spec.includes('...') ? spec.split('...') : spec.split('..');
  const [baseRef = '', headRef = ''] = parts.length === 2 ? parts : [repo.defaultBranch, spec];
  const base = resolve(repo, baseRef);
  const head = resolve(repo, headRef);
  if (base === undefined || head === undefined) return notFound(env, 'ParseComparePathParams');
  const withFiles = ctx.url.searchParams.get('files') !== 'false';
  const commits = commitsBetween(repo, base, head)
    .reverse()
    .map((commit) => ({
      ...renderCommit(env.state, repo, commit, env.urls),
      ...(withFiles ? { files: ownFiles(repo, commit) } : {}),
    }));
  return { status: 200, body: { total_commits: commits.length, commits } };
}

/** The files a commit touched against its parent, as `CommitAffectedFiles`. */
function ownFiles(repo: Repo, commit: Commit) {
  const parent = ancestry(repo, commit)[1];
  return treeDiff(parent, commit, false).map((change) => ({ filename: change.path, status: change.status }));
}

const STATUS: Record<FileChange['status'], string> = {
  added: 'added',
  removed: 'deleted',
  modified: 'changed',
  renamed: 'renamed',
};

function pullFiles(env: Env, repo: Repo, ctx: Context): Reply {
  const index = Number(ctx.params.index);
  const ends = pullEnds(repo, index);
  if (ends === undefined) return notFound(env);
  const web = `${env.urls.web}/${repo.owner}/${repo.name}`;
  const files = treeDiff(ends.base, ends.head, true).map((change) => ({
    filename: change.path,
    status: STATUS[change.status],
    additions: change.status === 'removed' ? 0 : 1,
    deletions: change.status === 'added' ? 0 : 1,
    changes: change.status === 'added' || change.status === 'removed' ? 1 : 2,
    ...(change.oldPath === undefined ? {} : { previous_filename: change.oldPath }),
    html_url: `${web}/src/commit/${ends.head.sha}/${change.path}`,
    contents_url: `${env.urls.api}/repos/${repo.owner}/${repo.name}/contents/${change.path}?ref=${ends.head.sha}`,
    raw_url: `${web}/raw/commit/${ends.head.sha}/${change.path}`,
  }));
  return paginate(ctx, files, env.urls.api);
}
