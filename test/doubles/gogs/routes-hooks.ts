import { jsonBody, type Context, type Reply } from '../forge/router.js';
import type { Hook, Repo } from '../forge/state.js';
import { empty, error, type Env, type GogsRoute } from './env.js';
import { withRepo } from './routes-repos.js';

/** The events a Gogs hook may have, in the order Gogs lists them. */
const EVENTS = ['create', 'delete', 'fork', 'push', 'issues', 'pull_request', 'issue_comment', 'release'];

/**
 * Repository webhooks (gogs.io API reference, "Repositories › Webhooks"): list, create, edit and
 * delete under `/repos/{o}/{r}/hooks`, for repository admins only (403 with an empty body). Created
 * hooks need `type` (`gogs`, …) and `config.url` and `config.content_type` (`json` or `form`);
 * `active` defaults to false; unknown events are dropped, none means `push`. The secret is never shown,
 * and an edit cannot change it. Deleting an unknown id answers 204 all the same.
 */
export function hookRoutes(env: Env): GogsRoute[] {
  const hooks = '/repos/{owner}/{name}/hooks';
  const admin = (ctx: Context, then: (repo: Repo) => Reply) =>
    withRepo(env, ctx, (repo) => (env.state.permissions(repo, ctx.login).admin ? then(repo) : empty(403)));
  return [
    {
      method: 'GET',
      pattern: hooks,
      auth: 'token',
      handler: (ctx) => admin(ctx, (repo) => ({ status: 200, body: repo.hooks.map(render) })),
    },
    {
      method: 'POST',
      pattern: hooks,
      auth: 'token',
      handler: (ctx) => admin(ctx, (repo) => create(env, repo, ctx)),
    },
    {
      method: 'PATCH',
      pattern: `${hooks}/{id}`,
      auth: 'token',
      handler: (ctx) => admin(ctx, (repo) => edit(repo, ctx)),
    },
    {
      method: 'DELETE',
      pattern: `${hooks}/{id}`,
      auth: 'token',
      handler: (ctx) =>
        admin(ctx, (repo) => {
          repo.hooks = repo.hooks.filter((hook) => String(hook.id) !== ctx.params.id);
          return { status: 204 };
        }),
    },
  ];
}

function render(hook: Hook) {
  return {
    id: hook.id,
    type: 'gogs',
    config: { url: hook.url, content_type: hook.contentType },
    events: EVENTS.filter((event) => hook.events.includes(event)),
    active: hook.active,
    updated_at: hook.updated,
    created_at: hook.created,
  };
}

function eventsOf(value: unknown): string[] {
  const listed = Array.isArray(value)
    ? value.filter((event): event is string => EVENTS.includes(String(event)))
    : [];
  return listed.length === 0 ? ['push'] : listed;
}

function create(env: Env, repo: Repo, ctx: Context): Reply {
  const body = jsonBody(ctx);
  if (body === undefined)
    return { status: 400, body: [{ classification: 'DeserializationError', message: 'invalid JSON' }] };
  if (!['gogs', 'slack', 'discord', 'dingtalk'].includes(String(body.type)))
    return error(422, 'Invalid hook type.');
  const config = (typeof body.config === 'object' && body.config !== null ? body.config : {}) as Record<
    string,
    unknown
  >;
  for (const key of ['url', 'content_type']) {
    if (typeof config[key] !== 'string') return error(422, `Missing config option: ${key}`);
  }
  if (!['json', 'form'].includes(String(config.content_type))) return error(422, 'Invalid content type.');
  const now = new Date().toISOString();
  const hook: Hook = {
    id: env.state.nextId(),
    url: String(config.url),
    secret: typeof config.secret === 'string' ? config.secret : '',
    contentType: String(config.content_type),
    insecureSsl: '0',
    events: eventsOf(body.events),
    active: body.active === true,
    created: now,
    updated: now,
  };
  repo.hooks.push(hook);
  return { status: 201, body: render(hook) };
}

function edit(repo: Repo, ctx: Context): Reply {
  const hook = repo.hooks.find((h) => String(h.id) === ctx.params.id);
  if (hook === undefined) return empty(404);
  const body = jsonBody(ctx) ?? {};
  const config = (typeof body.config === 'object' && body.config !== null ? body.config : {}) as Record<
    string,
    unknown
  >;
  if (typeof config.url === 'string') hook.url = config.url;
  if (typeof config.content_type === 'string') hook.contentType = config.content_type;
  hook.events = eventsOf(body.events);
  if (typeof body.active === 'boolean') hook.active = body.active;
  hook.updated = new Date().toISOString();
  return { status: 200, body: render(hook) };
}
