/**
 * Build statuses ("Updating build status for commits"):
 *
 * - Legacy, every version: `POST /rest/build-status/1.0/commits/{commitId}` with
 *   `{state: INPROGRESS|SUCCESSFUL|FAILED, key, name?, url, description?}` → 204; any authenticated
 *   user (LICENSED_USER); keyed by commit only (no repository, no check that the commit exists);
 *   `GET` of the same path lists the current statuses (paged).
 * - Repository-scoped, 7.4+: `POST /rest/api/1.0/projects/{key}/repos/{slug}/commits/{commitId}/builds`
 *   (REPO_READ; the commit must exist in the repository, else 404 NoSuchCommitException; states
 *   CANCELLED and UNKNOWN from 8.0) → 204. Before 7.4 the path is unknown (404, recorded).
 *
 * Posting a key the commit already has replaces that status in the server's view; the double also
 * keeps every post in order (`statuses()` of the test). Validation: 400, one error per field
 * (`state`, `key`, `url`; `name` ≤ 255, `url` ≤ 450, `key` ≤ 255 characters). Not modelled:
 * `buildNumber`, `duration`, `parent`, `ref`, `testResults` (accepted, not kept), deleting builds,
 * required-builds merge checks.
 */
import { jsonBody, type Context, type Reply } from '../forge/router.js';
import {
  atLeast,
  errors,
  EXCEPTIONS,
  invalid,
  notPermitted,
  paged,
  str,
  type BuildStatus,
  type Env,
  type Route,
} from './env.js';
import { resolve } from './routes-git.js';
import { REPO, withRepo } from './routes-repos.js';

/** Reads and records a posted status for `sha`; 204, or the 400 naming what is wrong. */
function post(env: Env, ctx: Context, sha: string, states: string[]): Reply {
  const body = jsonBody(ctx);
  if (body === undefined) return errors(400, 'Unexpected JSON in the request body', null);
  const state = str(body, 'state') ?? '';
  const key = str(body, 'key') ?? '';
  const url = str(body, 'url') ?? '';
  const name = str(body, 'name') ?? '';
  const problems: { context: string; message: string }[] = [];
  if (!states.includes(state))
    problems.push({ context: 'state', message: `The state must be one of ${states.join(', ')}` });
  if (key === '') problems.push({ context: 'key', message: 'The key must not be blank' });
  else if (key.length > 255)
    problems.push({ context: 'key', message: 'The key must be 255 characters or fewer' });
  if (url === '') problems.push({ context: 'url', message: 'The URL must not be blank' });
  else if (url.length > 450)
    problems.push({ context: 'url', message: 'The URL must be 450 characters or fewer' });
  if (name.length > 255)
    problems.push({ context: 'name', message: 'The name must be 255 characters or fewer' });
  if (problems.length > 0) return invalid(problems);
  const status: BuildStatus = {
    state,
    key,
    name,
    url,
    description: str(body, 'description') ?? '',
    dateAdded: env.now(),
  };
  env.statusLog.set(sha, [...(env.statusLog.get(sha) ?? []), status]);
  env.statuses.set(sha, [...(env.statuses.get(sha) ?? []).filter((s) => s.key !== key), status]);
  return { status: 204 };
}

const LEGACY = ['INPROGRESS', 'SUCCESSFUL', 'FAILED'];

export function buildRoutes(env: Env): Route[] {
  const routes: Route[] = [
    {
      method: 'POST',
      pattern: '/rest/build-status/1.0/commits/{commitId}',
      handler: (ctx) =>
        ctx.login === undefined
          ? notPermitted()
          : post(env, ctx, (ctx.params.commitId ?? '').toLowerCase(), LEGACY),
    },
    {
      method: 'GET',
      pattern: '/rest/build-status/1.0/commits/{commitId}',
      handler: (ctx) => paged(ctx, env.statuses.get((ctx.params.commitId ?? '').toLowerCase()) ?? []),
    },
  ];
  if (atLeast(env, '7.4'))
    routes.push({
      method: 'POST',
      pattern: `${REPO}/commits/{commitId}/builds`,
      handler: (ctx) =>
        withRepo(env, ctx, (repo) => {
          if (ctx.login === undefined) return notPermitted();
          const rev = ctx.params.commitId ?? '';
          const commit = resolve(repo, rev);
          if (commit === undefined)
            return errors(
              404,
              `Commit '${rev}' does not exist in repository '${repo.name}'.`,
              EXCEPTIONS.commit,
            );
          const states = atLeast(env, '8.0') ? [...LEGACY, 'CANCELLED', 'UNKNOWN'] : LEGACY;
          return post(env, ctx, commit.sha, states);
        }),
    });
  return routes;
}
