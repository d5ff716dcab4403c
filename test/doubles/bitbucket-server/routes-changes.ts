/**
 * What changed, over REST API 1.0 (reference: "Compare commits" `GET …/compare/changes`, "Gets pull
 * request changes" `GET …/pull-requests/{pullRequestId}/changes`; `RestChange`, `RestPath`):
 *
 * - `GET …/compare/changes?from=&to=`: the changes in `from` that `to` does not have (`from`
 *   against its merge base with `to`; either defaults to the default branch), paged like every
 *   list (`start`, `limit` 25 by default, 1,000 at most). An unknown commit is 404
 *   NoSuchCommitException.
 * - `GET …/pull-requests/{id}/changes`: "currently not paged": one page of at most `limit` (25 by
 *   default) and the server's maximum (`page.max.changes`, 1,000), `start` ignored, `isLastPage`
 *   false when changes were left out; an unknown id is 404 NoSuchPullRequestException.
 *
 * Changes are ADD, MODIFY, DELETE, or MOVE with `srcPath` (a removed and an added file of the same
 * content); paths as `RestPath` (`components`, `parent`, `name`, `extension`, `toString`).
 */
import { mergeBase, pullEnds, treeDiff, type FileChange } from '../forge/changes.js';
import type { Context, Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import { EXCEPTIONS, errors, paged, type Env, type Route } from './env.js';
import { resolve } from './routes-git.js';
import { REPO, withRepo } from './routes-repos.js';

/** The server's page maximum for changes (`page.max.changes`). */
const MAX_CHANGES = 1000;

const TYPES: Record<FileChange['status'], string> = {
  added: 'ADD',
  modified: 'MODIFY',
  removed: 'DELETE',
  renamed: 'MOVE',
};

function restPath(path: string) {
  const components = path.split('/');
  const name = components.at(-1) ?? path;
  const dot = name.lastIndexOf('.');
  return {
    components,
    parent: components.slice(0, -1).join('/'),
    name,
    ...(dot > 0 ? { extension: name.slice(dot + 1) } : {}),
    toString: path,
  };
}

function render(change: FileChange) {
  return {
    contentId:
      change.status === 'removed' ? '0'.repeat(40) : change.path.length.toString(16).padStart(40, 'a'),
    type: TYPES[change.status],
    nodeType: 'FILE',
    path: restPath(change.path),
    ...(change.oldPath === undefined ? {} : { srcPath: restPath(change.oldPath) }),
    executable: false,
    percentUnchanged: change.status === 'renamed' ? 100 : -1,
    properties: { gitChangeType: TYPES[change.status] },
  };
}

function compare(repo: Repo, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const fromRev = query.get('from') ?? repo.defaultBranch;
  const toRev = query.get('to') ?? repo.defaultBranch;
  const from = resolve(repo, fromRev);
  const to = resolve(repo, toRev);
  const missing = from === undefined ? fromRev : to === undefined ? toRev : undefined;
  if (from === undefined || to === undefined)
    return errors(
      404,
      `Commit '${missing ?? ''}' does not exist in repository '${repo.name}'.`,
      EXCEPTIONS.commit,
    );
  return paged(ctx, treeDiff(mergeBase(repo, to, from), from, true).map(render));
}

function pullChanges(repo: Repo, ctx: Context): Reply {
  const id = Number(ctx.params.pullRequestId);
  const ends = pullEnds(repo, id);
  if (ends === undefined)
    return errors(
      404,
      `Pull request ${ctx.params.pullRequestId ?? ''} does not exist in ${repo.owner}/${repo.name}.`,
      'com.atlassian.bitbucket.pull.NoSuchPullRequestException',
    );
  const asked = Number(ctx.url.searchParams.get('limit') ?? 25);
  const limit = Math.min(Number.isInteger(asked) && asked > 0 ? asked : 25, MAX_CHANGES);
  const all = treeDiff(ends.base, ends.head, true);
  const values = all.slice(0, limit).map(render);
  return {
    status: 200,
    body: {
      fromHash: ends.head.sha,
      toHash: ends.base?.sha ?? null,
      properties: { changeScope: 'ALL' },
      values,
      size: values.length,
      isLastPage: values.length === all.length,
      start: 0,
      limit,
      nextPageStart: null,
    },
  };
}

export function changeRoutes(env: Env): Route[] {
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) =>
    withRepo(env, ctx, (repo) => then(repo, ctx));
  return [
    { method: 'GET', pattern: `${REPO}/compare/changes`, handler: read(compare) },
    { method: 'GET', pattern: `${REPO}/pull-requests/{pullRequestId}/changes`, handler: read(pullChanges) },
  ];
}
