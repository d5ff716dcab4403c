import { jsonBody, type Context, type Reply } from '../forge/router.js';
import type { Repo } from '../forge/state.js';
import { error, paginate, type Env, type BitbucketRoute } from './env.js';
import { renderAccount, renderCommit, renderRepo, uuidOf } from './render.js';

/** The 410 Atlassian answers on the cross-workspace listings it removed in 2026 (CHANGE-2770). */
const GONE = (): Reply =>
  error(410, 'CHANGE-2770 - Functionality has been deprecated', {
    detail: 'Please read the changelog entry for more details.',
    data: { announcement_url: 'https://developer.atlassian.com/cloud/bitbucket/changelog#CHANGE-2770' },
  });

/**
 * Bitbucket Cloud's REST API 2.0 as of 2026: `/user`, `/user/emails`, `/user/workspaces`,
 * `/user/workspaces/{ws}/permission`, `/user/workspaces/{ws}/permissions/repositories?q=`,
 * `/repositories/{ws}?role=member`, `/repositories/{ws}/{slug}` (403 for a private one the user
 * cannot see), `…/src/{commit}/{path}`, `…/commit/{rev}` (short hashes too), `…/refs/branches/{name}`,
 * hooks (admins) and build statuses (writers); the removed listings answer 410.
 */
export function routes(env: Env): BitbucketRoute[] {
  const repo = '/repositories/{ws}/{slug}';
  const read = (then: (r: Repo, ctx: Context) => Reply) => (ctx: Context) => withRepo(env, ctx, then);
  return [
    {
      method: 'GET',
      pattern: '/user',
      handler: (ctx) => ({ status: 200, body: renderAccount(me(env, ctx), env.urls) }),
    },
    {
      method: 'GET',
      pattern: '/user/emails',
      handler: (ctx) =>
        paginate(env, ctx, [
          { type: 'email', email: me(env, ctx).primaryEmail, is_primary: true, is_confirmed: true },
        ]),
    },
    {
      method: 'GET',
      pattern: '/user/workspaces',
      handler: (ctx) =>
        paginate(
          env,
          ctx,
          workspacesOf(env, ctx).map((ws) => access(env, ctx, ws)),
        ),
    },
    {
      method: 'GET',
      pattern: '/user/workspaces/{ws}/permission',
      handler: (ctx) => workspacePermission(env, ctx),
    },
    {
      method: 'GET',
      pattern: '/user/workspaces/{ws}/permissions/repositories',
      handler: (ctx) => repoPermissions(env, ctx),
    },
    { method: 'GET', pattern: '/workspaces', handler: GONE },
    { method: 'GET', pattern: '/repositories', handler: GONE },
    { method: 'GET', pattern: '/user/permissions/repositories', handler: GONE },
    { method: 'GET', pattern: '/user/permissions/workspaces', handler: GONE },
    { method: 'GET', pattern: '/repositories/{ws}', handler: (ctx) => workspaceRepos(env, ctx) },
    {
      method: 'GET',
      pattern: repo,
      handler: read((r, ctx) => ({ status: 200, body: renderRepo(env.state, r, env.urls, ctx.login) })),
    },
    { method: 'GET', pattern: `${repo}/src/{commit}/{path+}`, handler: read((r, ctx) => src(env, r, ctx)) },
    { method: 'GET', pattern: `${repo}/commit/{rev}`, handler: read((r, ctx) => commit(env, r, ctx)) },
    {
      method: 'GET',
      pattern: `${repo}/refs/branches/{name+}`,
      handler: read((r, ctx) => branch(env, r, ctx)),
    },
    {
      method: 'GET',
      pattern: `${repo}/hooks`,
      handler: admin(env, (r, ctx) =>
        paginate(
          env,
          ctx,
          r.hooks.map((h) => renderHook(env, r, h)),
        ),
      ),
    },
    { method: 'POST', pattern: `${repo}/hooks`, handler: admin(env, (r, ctx) => createHook(env, r, ctx)) },
    {
      method: 'DELETE',
      pattern: `${repo}/hooks/{uid}`,
      handler: admin(env, (r, ctx) => deleteHook(env, r, ctx)),
    },
    {
      method: 'POST',
      pattern: `${repo}/commit/{rev}/statuses/build`,
      handler: read((r, ctx) => status(env, r, ctx)),
    },
  ];
}

function me(env: Env, ctx: Context) {
  const user = env.state.user(ctx.login ?? '');
  if (user === undefined) throw new Error('Bitbucket double: a route without its user');
  return user;
}

/** Workspaces: those the user is a member of, and those of the repositories they were given access to. */
function workspacesOf(env: Env, ctx: Context): string[] {
  const login = ctx.login ?? '';
  const owners = [...env.state.repos.values()]
    .filter((r) => env.state.isAffiliated(r, login))
    .map((r) => r.owner);
  const seen = new Set<string>();
  return [...me(env, ctx).orgs, ...owners].filter(
    (ws) => !seen.has(ws.toLowerCase()) && seen.add(ws.toLowerCase()),
  );
}

const memberOf = (env: Env, ctx: Context, ws: string) =>
  me(env, ctx).orgs.some((org) => org.toLowerCase() === ws.toLowerCase());

const inWorkspaces = (env: Env, ctx: Context, ws: string) =>
  workspacesOf(env, ctx).some((w) => w.toLowerCase() === ws.toLowerCase());

const owns = (env: Env, ctx: Context, ws: string) =>
  ws.toLowerCase() === (ctx.login ?? '').toLowerCase() || me(env, ctx).orgAdmin.includes(ws.toLowerCase());

function access(env: Env, ctx: Context, ws: string) {
  return {
    type: 'workspace_access',
    administrator: owns(env, ctx, ws),
    workspace: {
      type: 'workspace_base',
      uuid: uuidOf(ws.length * 7919),
      slug: ws,
      links: { self: { href: `${env.urls.api}/workspaces/${ws}` } },
    },
  };
}

function workspacePermission(env: Env, ctx: Context): Reply {
  const ws = (ctx.params.ws ?? '').toLowerCase();
  if (!inWorkspaces(env, ctx, ws)) return error(403, 'You do not have access to this workspace.');
  return {
    status: 200,
    body: {
      type: 'workspace_membership',
      permission: owns(env, ctx, ws) ? 'owner' : memberOf(env, ctx, ws) ? 'member' : 'collaborator',
      user: renderAccount(me(env, ctx), env.urls),
    },
  };
}

function permissionOf(
  env: Env,
  repo: Repo,
  login: string | undefined,
): 'admin' | 'write' | 'read' | undefined {
  const p = env.state.permissions(repo, login);
  if (!env.state.isAffiliated(repo, login ?? '')) return undefined;
  return p.admin ? 'admin' : p.push ? 'write' : 'read';
}

function repoPermissions(env: Env, ctx: Context): Reply {
  const ws = (ctx.params.ws ?? '').toLowerCase();
  const wanted = /repository\.full_name="([^"]+)"/
    .exec(ctx.url.searchParams.get('q') ?? '')?.[1]
    ?.toLowerCase();
  const items = [...env.state.repos.values()]
    .filter(
      (r) =>
        r.owner.toLowerCase() === ws &&
        (wanted === undefined || `${r.owner}/${r.name}`.toLowerCase() === wanted),
    )
    .flatMap((r) => {
      const permission = permissionOf(env, r, ctx.login);
      return permission === undefined
        ? []
        : [
            {
              type: 'repository_permission',
              permission,
              user: renderAccount(me(env, ctx), env.urls),
              repository: {
                type: 'repository',
                name: r.name,
                full_name: `${r.owner}/${r.name}`,
                uuid: uuidOf(r.id),
              },
            },
          ];
    });
  return paginate(env, ctx, items);
}

function workspaceRepos(env: Env, ctx: Context): Reply {
  const ws = (ctx.params.ws ?? '').toLowerCase();
  const repos = [...env.state.repos.values()].filter(
    (r) =>
      r.owner.toLowerCase() === ws &&
      (ctx.url.searchParams.get('role') !== 'member' || env.state.isAffiliated(r, ctx.login ?? '')),
  );
  return paginate(
    env,
    ctx,
    repos.map((r) => renderRepo(env.state, r, env.urls, ctx.login)),
  );
}

export function withRepo(env: Env, ctx: Context, then: (repo: Repo, ctx: Context) => Reply): Reply {
  const repo = env.state.repo(ctx.params.ws ?? '', ctx.params.slug ?? '');
  if (repo === undefined)
    return error(404, `Repository ${ctx.params.ws ?? ''}/${ctx.params.slug ?? ''} not found`);
  if (!env.state.permissions(repo, ctx.login).pull)
    return error(403, 'Access denied. You must have read access to this repository.');
  return then(repo, ctx);
}

function admin(env: Env, then: (repo: Repo, ctx: Context) => Reply) {
  return (ctx: Context) =>
    withRepo(env, ctx, (repo) =>
      env.state.permissions(repo, ctx.login).admin
        ? then(repo, ctx)
        : error(403, 'You do not have permission to install webhooks on this repository.'),
    );
}

/** A full hash, or a unique prefix of at least 7 characters (the 12-character ones of payloads). */
export function resolve(repo: Repo, rev: string) {
  const direct = repo.commits.get(repo.branches.get(rev) ?? repo.tags.get(rev) ?? rev);
  if (direct !== undefined || rev.length < 7) return direct;
  const matches = [...repo.commits.keys()].filter((sha) => sha.startsWith(rev));
  return matches.length === 1 ? repo.commits.get(matches[0] ?? '') : undefined;
}

function src(env: Env, repo: Repo, ctx: Context): Reply {
  const found = resolve(repo, ctx.params.commit ?? '');
  if (found === undefined) return error(404, `Commit not found: ${ctx.params.commit ?? ''}`);
  const content = found.tree.get(ctx.params.path ?? '');
  if (content === undefined) return error(404, `No such file or directory: ${ctx.params.path ?? ''}`);
  return { status: 200, text: content, headers: { 'content-type': 'text/plain' } };
}

function commit(env: Env, repo: Repo, ctx: Context): Reply {
  const found = resolve(repo, ctx.params.rev ?? '');
  return found === undefined
    ? error(404, `Commit not found: ${ctx.params.rev ?? ''}`)
    : { status: 200, body: renderCommit(env.state, repo, found, env.urls) };
}

function branch(env: Env, repo: Repo, ctx: Context): Reply {
  const name = ctx.params.name ?? '';
  const head = repo.commits.get(repo.branches.get(name) ?? '');
  if (head === undefined) return error(404, `Branch "${name}" does not exist.`);
  return {
    status: 200,
    body: { type: 'branch', name, target: renderCommit(env.state, repo, head, env.urls) },
  };
}

function renderHook(
  env: Env,
  repo: Repo,
  hook: { id: number; url: string; events: string[]; active: boolean; created: string; secret: string },
) {
  return {
    type: 'webhook_subscription',
    uuid: uuidOf(hook.id),
    url: hook.url,
    description: 'svc',
    subject_type: 'repository',
    subject: renderRepo(env.state, repo, env.urls, undefined),
    active: hook.active,
    created_at: hook.created,
    events: hook.events,
    secret_set: hook.secret !== '',
    skip_cert_verification: false,
  };
}

function createHook(env: Env, repo: Repo, ctx: Context): Reply {
  const body = jsonBody(ctx) ?? {};
  if (typeof body.url !== 'string' || body.url === '')
    return error(400, 'Bad request', { fields: { url: ['Required field: "url" is not present'] } });
  const events = Array.isArray(body.events)
    ? body.events.filter((e): e is string => typeof e === 'string')
    : [];
  if (events.length === 0) return error(400, 'Bad request', { fields: { events: ['Required field'] } });
  const now = new Date().toISOString();
  const hook = {
    id: env.state.nextId(),
    url: body.url,
    secret: typeof body.secret === 'string' ? body.secret : '',
    contentType: 'json',
    insecureSsl: '0',
    events,
    active: body.active !== false,
    created: now,
    updated: now,
  };
  repo.hooks.push(hook);
  return { status: 201, body: renderHook(env, repo, hook) };
}

function deleteHook(env: Env, repo: Repo, ctx: Context): Reply {
  const before = repo.hooks.length;
  repo.hooks = repo.hooks.filter((hook) => uuidOf(hook.id) !== ctx.params.uid);
  return repo.hooks.length === before ? error(404, 'Webhook not found') : { status: 204 };
}

const STATES = ['INPROGRESS', 'SUCCESSFUL', 'FAILED', 'STOPPED'];

/** A build status; a post with a key the commit already has replaces that status. */
function status(env: Env, repo: Repo, ctx: Context): Reply {
  if (!env.state.permissions(repo, ctx.login).push)
    return error(403, 'Access denied. You must have write access.');
  const found = resolve(repo, ctx.params.rev ?? '');
  if (found === undefined) return error(404, `Commit not found: ${ctx.params.rev ?? ''}`);
  const body = jsonBody(ctx) ?? {};
  const key = typeof body.key === 'string' ? body.key : '';
  if (key === '' || key.length > 40) {
    const why =
      key === ''
        ? 'This field is required.'
        : `Ensure this value has at most 40 characters (it has ${key.length}).`;
    return error(400, `key: ${why}`, { fields: { key: [why] } });
  }
  const state = typeof body.state === 'string' ? body.state : '';
  if (!STATES.includes(state))
    return error(400, `state: "${state}" is not a valid choice.`, {
      fields: { state: ['not a valid choice'] },
    });
  const entry = {
    id: env.state.nextId(),
    state,
    context: key,
    description: typeof body.description === 'string' ? body.description : '',
    target_url: typeof body.url === 'string' ? body.url : '',
    creator: ctx.login ?? '',
    created: new Date().toISOString(),
  };
  repo.statuses.set(found.sha, [...(repo.statuses.get(found.sha) ?? []), entry]);
  return {
    status: 201,
    body: {
      type: 'build',
      key,
      state,
      name: body.name ?? key,
      url: entry.target_url,
      description: entry.description,
      refname: body.refname ?? null,
      commit: { hash: found.sha },
    },
  };
}
