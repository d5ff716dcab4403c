import type { Context, Reply } from '../forge/router.js';
import { error, notFound, type Env, type GiteaRoute } from './env.js';
import { paginate } from './paginate.js';
import { renderOrg, renderUser } from './render.js';

/**
 * Accounts and organizations: `GET /user`, `GET /user/orgs` (paged; `name` and `username`),
 * `GET /orgs/{org}/members/{username}` (204 or 404, as a member asking of themselves) and
 * `GET /users/{username}/orgs/{org}/permissions` (Gitea 1.16+).
 */
export function userRoutes(env: Env): GiteaRoute[] {
  return [
    { method: 'GET', pattern: '/user', auth: 'token', handler: (ctx) => currentUser(env, ctx) },
    { method: 'GET', pattern: '/user/orgs', auth: 'token', handler: (ctx) => orgs(env, ctx) },
    {
      method: 'GET',
      pattern: '/orgs/{org}/members/{username}',
      auth: 'token',
      handler: (ctx) => member(env, ctx),
    },
    {
      method: 'GET',
      pattern: '/users/{username}/orgs/{org}/permissions',
      auth: 'token',
      handler: (ctx) => permissions(env, ctx),
    },
  ];
}

function currentUser(env: Env, ctx: Context): Reply {
  const user = env.state.user(ctx.login ?? '');
  return user === undefined
    ? error(env, 401, 'token is required')
    : { status: 200, body: renderUser(user, env.urls) };
}

function orgs(env: Env, ctx: Context): Reply {
  const user = env.state.user(ctx.login ?? '');
  const all = (user?.orgs ?? []).map((org, index) => renderOrg(org, 50_000 + index, env.urls));
  return paginate(ctx, all, env.urls.api);
}

const memberOf = (env: Env, login: string, org: string) =>
  env.state.user(login)?.orgs.some((name) => name.toLowerCase() === org.toLowerCase()) === true;

function member(env: Env, ctx: Context): Reply {
  const asked = ctx.params.username ?? '';
  const org = ctx.params.org ?? '';
  // Asking of someone else as an outsider redirects to the public membership check: not modelled.
  if (asked.toLowerCase() !== (ctx.login ?? '').toLowerCase() && !memberOf(env, ctx.login ?? '', org)) {
    return notFound(env);
  }
  return memberOf(env, asked, org) ? { status: 204 } : notFound(env);
}

function permissions(env: Env, ctx: Context): Reply {
  const login = ctx.params.username ?? '';
  const org = ctx.params.org ?? '';
  const user = env.state.user(login);
  if (user === undefined) return notFound(env, `user redirect does not exist [name: ${login}]`);
  const isMember = memberOf(env, login, org);
  const admin = isMember && user.orgAdmin.includes(org.toLowerCase());
  return {
    status: 200,
    body: {
      is_owner: admin,
      is_admin: admin,
      can_write: isMember,
      can_read: isMember,
      can_create_repository: admin,
    },
  };
}
