/**
 * What changed, as GitLab's REST API v4 tells it (docs.gitlab.com: api/repositories "Compare
 * branches, tags, or commits", api/merge_requests "Get single MR" and "List merge request diffs",
 * administration/diff_limits):
 *
 * - `GET /projects/:id/repository/compare?from=&to=&straight=`: `commits` (always complete) and
 *   `diffs` (old_path/new_path, new_file/renamed_file/deleted_file), not paged; `straight=true`
 *   compares the two commits, otherwise `to` with its merge base with `from`. Past the diff limits
 *   (1,000 files, GitLab's default "Maximum diff files") the list is cut and `compare_timeout` is
 *   true. An unknown `from` or `to` is 404 "404 Ref Not Found".
 * - `GET /projects/:id/merge_requests/:iid`: the fields svc reads, with `changes_count`, a string
 *   that ends in `+` when the merge request's diff passed the limits (its stored files are cut).
 * - `GET /projects/:id/merge_requests/:iid/diffs`: the stored diff's files, paged (`page`,
 *   `per_page` 20 by default, 100 at most; `X-Next-Page`, `X-Total`, `Link`); 404 for an unknown iid.
 *
 * Renames are found when a removed file and an added one have the same content.
 */
import { commitsBetween, mergeBase, pullEnds, treeDiff, type FileChange } from '../forge/changes.js';
import type { Context, Reply } from '../forge/router.js';
import type { Commit, Repo } from '../forge/state.js';
import { message, type Env, type GitLabRoute } from './env.js';
import { paginate, withProject } from './routes.js';

/** GitLab's default "Maximum diff files" (administration/diff_limits). */
const MAX_DIFF_FILES = 1000;

export function changeRoutes(env: Env): GitLabRoute[] {
  const project = '/projects/{id}';
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) => withProject(env, ctx, then);
  return [
    {
      method: 'GET',
      pattern: `${project}/repository/compare`,
      handler: read((repo, ctx) => compare(env, repo, ctx)),
    },
    {
      method: 'GET',
      pattern: `${project}/merge_requests/{iid}`,
      handler: read((repo, ctx) => mergeRequest(env, repo, ctx)),
    },
    {
      method: 'GET',
      pattern: `${project}/merge_requests/{iid}/diffs`,
      handler: read((repo, ctx) => {
        const diff = storedDiff(repo, Number(ctx.params.iid));
        return diff === undefined
          ? message(404, '404 Not found')
          : paginate(env, ctx, diff.files.map(render));
      }),
    },
  ];
}

/** A diff entry; the patch text itself is a placeholder (svc reads names only). */
function render(change: FileChange) {
  return {
    old_path: change.oldPath ?? change.path,
    new_path: change.path,
    a_mode: change.status === 'added' ? '0' : '100644',
    b_mode: change.status === 'removed' ? '0' : '100644',
    diff: `@@ -1 +1 @@\n-${change.status}\n+${change.path}\n`,
    collapsed: false,
    too_large: false,
    new_file: change.status === 'added',
    renamed_file: change.status === 'renamed',
    deleted_file: change.status === 'removed',
    generated_file: false,
  };
}

/** A branch, a tag or a full sha. */
function resolve(repo: Repo, ref: string): Commit | undefined {
  return repo.commits.get(repo.branches.get(ref) ?? repo.tags.get(ref) ?? ref);
}

function compare(env: Env, repo: Repo, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const from = resolve(repo, query.get('from') ?? '');
  const to = resolve(repo, query.get('to') ?? '');
  if (from === undefined || to === undefined) return message(404, '404 Ref Not Found');
  const base = query.get('straight') === 'true' ? from : mergeBase(repo, from, to);
  const files = treeDiff(base, to, true);
  const commits = commitsBetween(repo, from, to).map((c) => ({
    id: c.sha,
    short_id: c.sha.slice(0, 11),
    title: c.message.split('\n')[0] ?? '',
    author_name: c.author,
    author_email: `${c.author}@example.com`,
    created_at: c.timestamp,
  }));
  return {
    status: 200,
    body: {
      commit: commits.at(-1) ?? null,
      commits,
      diffs: files.slice(0, MAX_DIFF_FILES).map(render),
      compare_timeout: files.length > MAX_DIFF_FILES,
      compare_same_ref: from.sha === to.sha,
      web_url: `${env.urls.web}/${repo.owner}/${repo.name}/-/compare/${from.sha}...${to.sha}`,
    },
  };
}

/** The merge request's diff as GitLab stores it: at most MAX_DIFF_FILES files, and whether it overflowed. */
function storedDiff(repo: Repo, iid: number) {
  const ends = pullEnds(repo, iid);
  if (ends === undefined) return undefined;
  const all = treeDiff(ends.base, ends.head, true);
  return { ends, files: all.slice(0, MAX_DIFF_FILES), overflow: all.length > MAX_DIFF_FILES };
}

function mergeRequest(env: Env, repo: Repo, ctx: Context): Reply {
  const iid = Number(ctx.params.iid);
  const diff = storedDiff(repo, iid);
  if (diff === undefined) return message(404, '404 Not found');
  const { base, head } = diff.ends;
  return {
    status: 200,
    body: {
      id: 500_000 + iid,
      iid,
      project_id: repo.id,
      title: `Merge request ${iid}`,
      state: 'opened',
      target_branch: repo.defaultBranch,
      sha: head.sha,
      changes_count: `${diff.files.length}${diff.overflow ? '+' : ''}`,
      diff_refs: { base_sha: base?.sha ?? null, head_sha: head.sha, start_sha: base?.sha ?? null },
      web_url: `${env.urls.web}/${repo.owner}/${repo.name}/-/merge_requests/${iid}`,
    },
  };
}
