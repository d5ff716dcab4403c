import { jsonBody, type Context, type Reply } from '../forge/router.js';
import type { Hook, Repo } from '../forge/state.js';
import { error, notFound, type Env, type GiteaRoute } from './env.js';
import { paginate } from './paginate.js';
import { withRepo } from './routes-repos.js';

/** The events a Gitea hook may subscribe to (the families svc uses, and a few others). */
const EVENTS = [
  'create',
  'delete',
  'fork',
  'push',
  'issues',
  'issue_comment',
  'pull_request',
  'release',
  'repository',
  'wiki',
];

/**
 * Repository webhooks and commit statuses. Hooks (list, create, edit, delete) need repository admin
 * rights (403 otherwise, in Gitea's words); created hooks need `type`, `config.url` and
 * `config.content_type`; `active` defaults to false; no events means `push`; the secret is never
 * shown, and an edit does not change it (as Gitea up to 1.21 and Forgejo). Statuses
 * (`POST /repos/{o}/{r}/statuses/{sha}`) need write access and answer `status`, not `state`.
 */
export function hookRoutes(env: Env): GiteaRoute[] {
  const hooks = '/repos/{owner}/{name}/hooks';
  const admin = (then: (repo: Repo, ctx: Context) => Reply) => (ctx: Context) =>
    withRepo(env, ctx, (repo) =>
      env.state.permissions(repo, ctx.login).admin
        ? then(repo, ctx)
        : error(env, 403, 'user should be an owner or a collaborator with admin write of a repository'),
    );
  return [
    {
      method: 'GET',
      pattern: hooks,
      auth: 'token',
      handler: admin((repo, ctx) => paginate(ctx, repo.hooks.map(render), env.urls.api)),
    },
    { method: 'POST', pattern: hooks, auth: 'token', handler: admin((repo, ctx) => create(env, repo, ctx)) },
    {
      method: 'PATCH',
      pattern: `${hooks}/{id}`,
      auth: 'token',
      handler: admin((repo, ctx) => edit(env, repo, ctx)),
    },
    {
      method: 'DELETE',
      pattern: `${hooks}/{id}`,
      auth: 'token',
      handler: admin((repo, ctx) => {
        const before = repo.hooks.length;
        repo.hooks = repo.hooks.filter((hook) => String(hook.id) !== ctx.params.id);
        return repo.hooks.length === before ? notFound(env) : { status: 204 };
      }),
    },
    {
      method: 'POST',
      pattern: '/repos/{owner}/{name}/statuses/{sha}',
      auth: 'token',
      handler: (ctx) => withRepo(env, ctx, (repo) => status(env, repo, ctx)),
    },
  ];
}

function render(hook: Hook) {
  return {
    id: hook.id,
    type: 'gitea',
    branch_filter: '*',
    config: { url: hook.url, content_type: hook.contentType },
    events: hook.events,
    authorization_header: '',
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

function configOf(body: Record<string, unknown>): Record<string, unknown> {
  return typeof body.config === 'object' && body.config !== null
    ? (body.config as Record<string, unknown>)
    : {};
}

function create(env: Env, repo: Repo, ctx: Context): Reply {
  const body = jsonBody(ctx);
  if (body === undefined) return error(env, 422, '[Body]: DeserializationError');
  if (
    ![
      'gitea',
      'gogs',
      'slack',
      'discord',
      'dingtalk',
      'telegram',
      'msteams',
      'feishu',
      'matrix',
      'wechatwork',
      'packagist',
    ].includes(String(body.type))
  ) {
    return error(env, 422, `Invalid hook type: ${String(body.type)}`);
  }
  const config = configOf(body);
  if (typeof config.url !== 'string') return error(env, 422, 'Missing config option: url');
  if (!['json', 'form'].includes(String(config.content_type))) return error(env, 422, 'Invalid content type');
  const now = new Date().toISOString();
  const hook: Hook = {
    id: env.state.nextId(),
    url: config.url,
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

function edit(env: Env, repo: Repo, ctx: Context): Reply {
  const hook = repo.hooks.find((h) => String(h.id) === ctx.params.id);
  if (hook === undefined) return notFound(env);
  const body = jsonBody(ctx) ?? {};
  const config = configOf(body);
  if (typeof config.url === 'string') hook.url = config.url;
  if (typeof config.content_type === 'string') hook.contentType = config.content_type;
  hook.events = eventsOf(body.events);
  if (typeof body.active === 'boolean') hook.active = body.active;
  hook.updated = new Date().toISOString();
  return { status: 200, body: render(hook) };
}

function status(env: Env, repo: Repo, ctx: Context): Reply {
  if (!env.state.permissions(repo, ctx.login).push)
    return error(env, 403, 'user should have a permission to write to a repository');
  const sha = ctx.params.sha ?? '';
  if (!repo.commits.has(sha)) return notFound(env, `object does not exist [id: ${sha}, rel_path: ]`);
  const body = jsonBody(ctx) ?? {};
  const state = typeof body.state === 'string' ? body.state : '';
  if (!['pending', 'success', 'error', 'failure', 'warning'].includes(state))
    return error(env, 422, `[State]: invalid state ${state}`);
  const now = new Date().toISOString();
  const posted = {
    id: env.state.nextId(),
    state,
    context: typeof body.context === 'string' ? body.context : 'default',
    description: typeof body.description === 'string' ? body.description : '',
    target_url: typeof body.target_url === 'string' ? body.target_url : '',
    creator: ctx.login ?? '',
    created: now,
  };
  repo.statuses.set(sha, [...(repo.statuses.get(sha) ?? []), posted]);
  return {
    status: 201,
    body: {
      id: posted.id,
      status: state,
      target_url: posted.target_url,
      description: posted.description,
      url: `${env.urls.api}/repos/${repo.owner}/${repo.name}/statuses/${sha}`,
      context: posted.context,
      created_at: now,
      updated_at: now,
    },
  };
}
