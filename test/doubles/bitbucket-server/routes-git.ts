/**
 * A repository's git data over REST API 1.0 (below `/rest/api/1.0/projects/{key}/repos/{slug}`):
 *
 * - `GET …/branches` (paged; `filterText` = case-insensitive substring, `orderBy=ALPHABETICAL`
 *   (default here) or `MODIFICATION` (newest head first)), `GET …/branches/default` (404
 *   NoDefaultBranchException while the repository is empty), `GET …/tags` (paged, `filterText`).
 * - `GET …/commits/{commitId}`: a full hash, a unique abbreviation of at least 4 characters (git's
 *   rev-parse rule), a branch or tag name (`refs/heads/…`, `refs/tags/…` too) or
 *   `refs/pull-requests/{id}/from`; otherwise 404 NoSuchCommitException.
 * - `GET …/commits?until=&since=` (paged, newest first, first-parent chain; `until` defaults to the
 *   default branch).
 * - `GET …/raw/{path}?at=` (raw bytes as text/plain; `at` defaults to the default branch; 404
 *   NoSuchCommitException for an unknown `at`, NoSuchPathException for a missing path).
 *
 * Not modelled: `details=true` metadata, `base`, `boostMatches`, `path=` on commits, merges,
 * `…/browse`, `…/files`, `…/changes` (the compare's and a pull request's: routes-changes.ts).
 */
import type { Context, Reply } from '../forge/router.js';
import type { Commit, Repo } from '../forge/state.js';
import { EXCEPTIONS, errors, paged, type Env, type Route } from './env.js';
import { renderBranch, renderCommit, renderTag } from './render.js';
import { REPO, withRepo } from './routes-repos.js';

/** A commit by hash, abbreviation, ref name or pull request ref. */
export function resolve(repo: Repo, rev: string): Commit | undefined {
  const pull = /^refs\/pull-requests\/(\d+)\/from$/.exec(rev)?.[1];
  if (pull !== undefined) return repo.commits.get(repo.pulls.get(Number(pull)) ?? '');
  const name = rev.replace(/^refs\/(heads|tags)\//, '');
  const direct = repo.commits.get(repo.branches.get(name) ?? repo.tags.get(name) ?? rev);
  if (direct !== undefined || !/^[0-9a-f]{4,39}$/i.test(rev)) return direct;
  const matches = [...repo.commits.keys()].filter((sha) => sha.startsWith(rev.toLowerCase()));
  return matches.length === 1 ? repo.commits.get(matches[0] ?? '') : undefined;
}

const noCommit = (repo: Repo, rev: string) =>
  errors(404, `Commit '${rev}' does not exist in repository '${repo.name}'.`, EXCEPTIONS.commit);

const matching = (name: string, ctx: Context) =>
  name.toLowerCase().includes((ctx.url.searchParams.get('filterText') ?? '').toLowerCase());

function branches(repo: Repo, ctx: Context): Reply {
  const order = [...repo.commits.keys()];
  const names = [...repo.branches.keys()].filter((name) => matching(name, ctx));
  if (ctx.url.searchParams.get('orderBy') === 'MODIFICATION') {
    const age = (name: string) => order.indexOf(repo.branches.get(name) ?? '');
    names.sort((a, b) => age(b) - age(a) || a.localeCompare(b));
  } else names.sort((a, b) => a.localeCompare(b));
  return paged(
    ctx,
    names.map((name) => renderBranch(repo, name, repo.branches.get(name) ?? '')),
  );
}

function commits(env: Env, repo: Repo, ctx: Context): Reply {
  const until = ctx.url.searchParams.get('until') ?? repo.defaultBranch;
  const head = resolve(repo, until);
  if (head === undefined) return noCommit(repo, until);
  const sinceRev = ctx.url.searchParams.get('since');
  const since = sinceRev === null ? undefined : resolve(repo, sinceRev);
  if (sinceRev !== null && since === undefined) return noCommit(repo, sinceRev);
  const excluded = new Set<string>();
  for (let at = since; at !== undefined; at = repo.commits.get(at.parent ?? '')) excluded.add(at.sha);
  const chain: Commit[] = [];
  for (let at: Commit | undefined = head; at !== undefined && !excluded.has(at.sha);) {
    chain.push(at);
    at = repo.commits.get(at.parent ?? '');
  }
  return paged(
    ctx,
    chain.map((c) => renderCommit(env, c)),
  );
}

function raw(repo: Repo, ctx: Context): Reply {
  const at = ctx.url.searchParams.get('at') ?? repo.defaultBranch;
  const commit = resolve(repo, at);
  if (commit === undefined) return noCommit(repo, at);
  const path = ctx.params.path ?? '';
  const content = commit.tree.get(path);
  if (content === undefined)
    return errors(404, `The path "${path}" does not exist at revision "${commit.sha}"`, EXCEPTIONS.path);
  return { status: 200, text: content, headers: { 'content-type': 'text/plain;charset=UTF-8' } };
}

export function gitRoutes(env: Env): Route[] {
  const read = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) =>
    withRepo(env, ctx, (repo) => then(repo, ctx));
  return [
    { method: 'GET', pattern: `${REPO}/branches`, handler: read(branches) },
    {
      method: 'GET',
      pattern: `${REPO}/branches/default`,
      handler: read((repo) => {
        const sha = repo.branches.get(repo.defaultBranch);
        return sha === undefined
          ? errors(404, `Repository ${repo.owner}/${repo.name} has no default branch.`, EXCEPTIONS.branch)
          : { status: 200, body: renderBranch(repo, repo.defaultBranch, sha) };
      }),
    },
    {
      method: 'GET',
      pattern: `${REPO}/tags`,
      handler: read((repo, ctx) =>
        paged(
          ctx,
          [...repo.tags.keys()]
            .filter((name) => matching(name, ctx))
            .sort((a, b) => a.localeCompare(b))
            .map((name) => renderTag(name, repo.tags.get(name) ?? '')),
        ),
      ),
    },
    {
      method: 'GET',
      pattern: `${REPO}/commits/{commitId}`,
      handler: read((repo, ctx) => {
        const commit = resolve(repo, ctx.params.commitId ?? '');
        return commit === undefined
          ? noCommit(repo, ctx.params.commitId ?? '')
          : { status: 200, body: renderCommit(env, commit) };
      }),
    },
    { method: 'GET', pattern: `${REPO}/commits`, handler: read((repo, ctx) => commits(env, repo, ctx)) },
    { method: 'GET', pattern: `${REPO}/raw/{path+}`, handler: read(raw) },
  ];
}
