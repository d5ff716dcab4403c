import { jsonBody, type Context, type Reply } from '../forge/router.js';
import type { Hook, Repo } from '../forge/state.js';
import { message, type Env, type GitLabRoute } from './env.js';
import { levelOf } from './render.js';
import { withProject } from './routes.js';

/**
 * Project hooks (Maintainers: 403 "403 Forbidden" below) and commit statuses (Developers). A hook's
 * token is never shown; a bad URL is 422 "Invalid url given". A status needs a state GitLab knows
 * (400 otherwise), files under `ref` (default: a branch that has the commit, else 404 "References for
 * commit Not Found"), and a pending or running status cannot move to the state it is in (400).
 */
export function hookRoutes(env: Env): GitLabRoute[] {
  const hooks = '/projects/{id}/hooks';
  const maintainer = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) =>
    withProject(env, ctx, (repo) =>
      levelOf(env.state, repo, ctx.login) >= 40 ? then(repo, ctx) : message(403, '403 Forbidden'),
    );
  return [
    {
      method: 'GET',
      pattern: hooks,
      handler: maintainer((repo) => ({ status: 200, body: repo.hooks.map((hook) => render(repo, hook)) })),
    },
    { method: 'POST', pattern: hooks, handler: maintainer((repo, ctx) => create(env, repo, ctx)) },
    {
      method: 'DELETE',
      pattern: `${hooks}/{hook}`,
      handler: maintainer((repo, ctx) => {
        const before = repo.hooks.length;
        repo.hooks = repo.hooks.filter((hook) => String(hook.id) !== ctx.params.hook);
        return repo.hooks.length === before ? message(404, '404 Not found') : { status: 204 };
      }),
    },
    {
      method: 'POST',
      pattern: '/projects/{id}/statuses/{sha}',
      handler: (ctx) => withProject(env, ctx, (repo) => status(env, repo, ctx)),
    },
  ];
}

function render(repo: Repo, hook: Hook) {
  return {
    id: hook.id,
    url: hook.url,
    project_id: repo.id,
    push_events: hook.events.includes('push'),
    tag_push_events: hook.events.includes('tag_push'),
    merge_requests_events: hook.events.includes('merge_requests'),
    issues_events: false,
    note_events: false,
    enable_ssl_verification: hook.insecureSsl === '0',
    created_at: hook.created,
  };
}

function create(env: Env, repo: Repo, ctx: Context): Reply {
  const body = jsonBody(ctx) ?? {};
  const url = typeof body.url === 'string' ? body.url : '';
  if (url === '') return { status: 400, body: { error: 'url is missing' } };
  try {
    new URL(url);
  } catch {
    return message(422, 'Invalid url given');
  }
  const flag = (name: string, fallback: boolean) => (typeof body[name] === 'boolean' ? body[name] : fallback);
  const events = [
    ...(flag('push_events', true) ? ['push'] : []),
    ...(flag('tag_push_events', false) ? ['tag_push'] : []),
    ...(flag('merge_requests_events', false) ? ['merge_requests'] : []),
  ];
  const now = new Date().toISOString();
  const hook: Hook = {
    id: env.state.nextId(),
    url,
    secret: typeof body.token === 'string' ? body.token : '',
    contentType: 'json',
    insecureSsl: flag('enable_ssl_verification', true) ? '0' : '1',
    events,
    active: true,
    created: now,
    updated: now,
  };
  repo.hooks.push(hook);
  return { status: 201, body: render(repo, hook) };
}

const STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'];

function status(env: Env, repo: Repo, ctx: Context): Reply {
  if (levelOf(env.state, repo, ctx.login) < 30) return message(403, '403 Forbidden');
  const sha = ctx.params.sha ?? '';
  if (!repo.commits.has(sha)) return message(404, '404 Commit Not Found');
  const body = jsonBody(ctx) ?? {};
  const state = typeof body.state === 'string' ? body.state : '';
  if (state === '') return { status: 400, body: { error: 'state is missing' } };
  if (!STATES.includes(state)) return { status: 400, body: { error: 'state does not have a valid value' } };
  const ref =
    typeof body.ref === 'string' && body.ref !== ''
      ? body.ref
      : [...repo.branches].find(([, head]) => head === sha)?.[0];
  if (ref === undefined) return message(404, '404 References for commit Not Found');
  const name =
    typeof body.name === 'string' ? body.name : typeof body.context === 'string' ? body.context : 'default';
  const posted = repo.statuses.get(sha) ?? [];
  const last = posted.filter((s) => s.context === name).at(-1);
  if (last !== undefined && last.state === state && (state === 'pending' || state === 'running')) {
    const event = state === 'running' ? 'run' : 'enqueue';
    return message(
      400,
      `Cannot transition status via :${event} from :${state} (Reason(s): Status cannot transition via "${event}")`,
    );
  }
  const now = new Date().toISOString();
  const entry = {
    id: env.state.nextId(),
    state,
    context: name,
    description: typeof body.description === 'string' ? body.description : '',
    target_url: typeof body.target_url === 'string' ? body.target_url : '',
    creator: ctx.login ?? '',
    created: now,
  };
  repo.statuses.set(sha, [...posted, entry]);
  return {
    status: 201,
    body: {
      id: entry.id,
      sha,
      ref,
      status: state,
      name,
      target_url: entry.target_url,
      description: entry.description,
      created_at: now,
      allow_failure: false,
    },
  };
}
