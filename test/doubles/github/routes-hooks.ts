import type { Env } from './env.js';
import {
  badJson,
  error,
  invalid,
  jsonBody,
  notFound,
  paginate,
  type Context,
  type Reply,
  type Route,
} from './http.js';
import { hook } from './render.js';
import { visibleRepo } from './routes-repos.js';
import type { Hook, Repo } from './state.js';

/** The events a repository webhook may subscribe to that svc could ask for; `*` is every event. */
const KNOWN_EVENTS = new Set([
  '*',
  'push',
  'pull_request',
  'create',
  'delete',
  'deployment',
  'issues',
  'issue_comment',
  'pull_request_review',
  'pull_request_review_comment',
  'release',
  'status',
]);

/** Hooks need admin rights; readers get 403, others 404 (docs: rest/repos/webhooks). */
function adminRepo(env: Env, ctx: Context): Repo | Reply {
  const repo = visibleRepo(env, ctx);
  if ('status' in repo) return repo;
  if (!env.state.permissions(repo, ctx.login).admin)
    return error(403, 'Must have admin rights to Repository.');
  return repo;
}

/** Repository webhooks: list, create, update, delete. */
export function hookRoutes(env: Env): Route[] {
  const { urls } = env;
  const withHook = (ctx: Context, then: (repo: Repo, h: Hook) => Reply): Reply => {
    const repo = adminRepo(env, ctx);
    if ('status' in repo) return repo;
    const found = repo.hooks.find((h) => String(h.id) === ctx.params.id);
    return found === undefined ? notFound() : then(repo, found);
  };
  return [
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/hooks',
      handler(ctx) {
        const repo = adminRepo(env, ctx);
        if ('status' in repo) return repo;
        return paginate(
          ctx,
          repo.hooks.map((h) => hook(repo, h, urls)),
          urls.api,
        );
      },
    },
    {
      method: 'POST',
      pattern: '/repos/{owner}/{repo}/hooks',
      handler(ctx) {
        const repo = adminRepo(env, ctx);
        if ('status' in repo) return repo;
        const body = jsonBody(ctx);
        if (body === undefined) return badJson();
        const now = new Date().toISOString();
        const draft: Hook = {
          id: env.state.nextId(),
          url: '',
          secret: '',
          contentType: 'form',
          insecureSsl: '0',
          events: ['push'],
          active: true,
          created: now,
          updated: now,
        };
        const problem = apply(draft, body, repo);
        if (problem !== undefined) return problem;
        repo.hooks.push(draft);
        return { status: 201, body: hook(repo, draft, urls) };
      },
    },
    {
      method: 'GET',
      pattern: '/repos/{owner}/{repo}/hooks/{id}',
      handler: (ctx) => withHook(ctx, (repo, h) => ({ status: 200, body: hook(repo, h, urls) })),
    },
    {
      method: 'PATCH',
      pattern: '/repos/{owner}/{repo}/hooks/{id}',
      handler: (ctx) =>
        withHook(ctx, (repo, h) => {
          const body = jsonBody(ctx);
          if (body === undefined) return badJson();
          const draft = { ...h };
          const problem = apply(draft, body, repo);
          if (problem !== undefined) return problem;
          Object.assign(h, draft, { updated: new Date().toISOString() });
          return { status: 200, body: hook(repo, h, urls) };
        }),
    },
    {
      method: 'DELETE',
      pattern: '/repos/{owner}/{repo}/hooks/{id}',
      handler: (ctx) =>
        withHook(ctx, (repo, h) => {
          repo.hooks.splice(repo.hooks.indexOf(h), 1);
          return { status: 204 };
        }),
    },
  ];
}

/** Validates a create/update body and applies it to `draft`; a 422 reply when GitHub would refuse it. */
function apply(draft: Hook, body: Record<string, unknown>, repo: Repo): Reply | undefined {
  if (body.name !== undefined && body.name !== 'web') return invalid('Hook', 'name', 'Name must be "web"');
  if (body.config !== undefined) {
    if (typeof body.config !== 'object' || body.config === null)
      return invalid('Hook', 'config', 'Config is invalid');
    const config = body.config as Record<string, unknown>;
    const url = typeof config.url === 'string' ? config.url : '';
    if (!/^https?:\/\/[^\s]+$/.test(url))
      return invalid('Hook', 'url', 'Config must contain URL for webhooks');
    if (
      config.content_type !== undefined &&
      config.content_type !== 'json' &&
      config.content_type !== 'form'
    ) {
      return invalid('Hook', 'content_type', 'Content type must be json or form');
    }
    if (repo.hooks.some((h) => h.id !== draft.id && h.url === url)) {
      return invalid('Hook', 'config', 'Hook already exists on this repository');
    }
    draft.url = url;
    draft.secret = typeof config.secret === 'string' ? config.secret : '';
    draft.contentType = typeof config.content_type === 'string' ? config.content_type : 'form';
    // GitHub takes "0"/"1" as a string or a number.
    const insecure = config.insecure_ssl;
    draft.insecureSsl = typeof insecure === 'number' || typeof insecure === 'string' ? String(insecure) : '0';
  } else if (draft.url === '') {
    return invalid('Hook', 'config', 'Config must contain URL for webhooks');
  }
  if (body.events !== undefined) {
    const events = body.events;
    if (!Array.isArray(events) || events.some((e) => typeof e !== 'string' || !KNOWN_EVENTS.has(e))) {
      return invalid('Hook', 'events', 'Events are invalid');
    }
    draft.events = events as string[];
  }
  if (body.active !== undefined) draft.active = body.active === true;
  return undefined;
}
