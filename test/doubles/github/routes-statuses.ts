import type { Env } from './env.js';
import { badJson, error, invalid, jsonBody, paginate, type Route } from './http.js';
import { status } from './render.js';
import { visibleRepo } from './routes-repos.js';

const STATES = new Set(['error', 'failure', 'pending', 'success']);
/** GitHub's longest accepted status description. */
const MAX_DESCRIPTION = 140;

/** Commit statuses (docs: rest/commits/statuses): posting needs push access. */
export function statusRoutes(env: Env): Route[] {
  const { state, urls } = env;
  return [
    {
      method: 'POST',
      pattern: '/repos/{owner}/{repo}/statuses/{sha}',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        if (!state.permissions(repo, ctx.login).push)
          return error(403, 'Resource not accessible by integration');
        const body = jsonBody(ctx);
        if (body === undefined) return badJson();
        const sha = ctx.params.sha ?? '';
        if (!repo.commits.has(sha)) return invalid('Status', 'sha', `No commit found for SHA: ${sha}`);
        if (typeof body.state !== 'string' || !STATES.has(body.state)) {
          return invalid('Status', 'state', 'State is not included in the list');
        }
        const description = typeof body.description === 'string' ? body.description : '';
        if ([...description].length > MAX_DESCRIPTION) {
          return invalid('Status', 'description', 'description is too long (maximum is 140 characters)');
        }
        const posted = {
          id: state.nextId(),
          state: body.state,
          context: typeof body.context === 'string' ? body.context : 'default',
          description,
          target_url: typeof body.target_url === 'string' ? body.target_url : '',
          creator: ctx.login ?? '',
          created: new Date().toISOString(),
        };
        const list = repo.statuses.get(sha) ?? [];
        list.push(posted);
        repo.statuses.set(sha, list);
        return { status: 201, body: status(state, posted, urls) };
      },
    },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/commits/{ref}/statuses',
      handler(ctx) {
        const repo = visibleRepo(env, ctx);
        if ('status' in repo) return repo;
        const sha = state.resolve(repo, ctx.params.ref ?? '')?.sha ?? '';
        // Newest first, as GitHub lists them.
        const list = [...(repo.statuses.get(sha) ?? [])].reverse().map((s) => status(state, s, urls));
        return paginate(ctx, list, urls.api);
      },
    },
  ];
}
