import { createHash } from 'node:crypto';
import { jsonBody, type Context, type Reply } from '../forge/router.js';
import { empty, error, type Env, type GogsRoute } from './env.js';
import { renderOrg, renderUser } from './render.js';

/**
 * Accounts (gogs.io API reference, "Users" and "Organizations"): `GET /user`, `GET /users/{u}`,
 * `GET /user/orgs` (every organization of the user, in one answer), and the access tokens under
 * `/users/{u}/tokens`, which take HTTP Basic only and behave as in Gogs 0.13 and later: the list shows
 * a hash where the token was (it works as no token), and a second token of a name is refused with 422.
 */
export function userRoutes(env: Env): GogsRoute[] {
  return [
    { method: 'GET', pattern: '/user', auth: 'token', handler: (ctx) => currentUser(env, ctx) },
    { method: 'GET', pattern: '/users/{username}', auth: 'optional', handler: (ctx) => someUser(env, ctx) },
    { method: 'GET', pattern: '/user/orgs', auth: 'token', handler: (ctx) => orgs(env, ctx) },
    {
      method: 'GET',
      pattern: '/users/{username}/tokens',
      auth: 'basic',
      handler: (ctx) => listTokens(env, ctx),
    },
    {
      method: 'POST',
      pattern: '/users/{username}/tokens',
      auth: 'basic',
      handler: (ctx) => createToken(env, ctx),
    },
  ];
}

function currentUser(env: Env, ctx: Context): Reply {
  const user = env.state.user(ctx.login ?? '');
  return user === undefined ? empty(401) : { status: 200, body: renderUser(user, env.urls) };
}

function someUser(env: Env, ctx: Context): Reply {
  const user = env.state.user(ctx.params.username ?? '');
  if (user === undefined) return empty(404);
  return { status: 200, body: renderUser(user, env.urls, ctx.login !== undefined) };
}

function orgs(env: Env, ctx: Context): Reply {
  const user = env.state.user(ctx.login ?? '');
  if (user === undefined) return empty(401);
  return { status: 200, body: user.orgs.map((org, index) => renderOrg(org, 50_000 + index, env.urls)) };
}

/** The handler lists the tokens of the Basic-authenticated caller, whatever `{username}` says. */
function listTokens(env: Env, ctx: Context): Reply {
  const mine = env.named.filter((token) => token.login === ctx.login);
  const hashed = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 40);
  return { status: 200, body: mine.map((token) => ({ name: token.name, sha1: hashed(token.token) })) };
}

function createToken(env: Env, ctx: Context): Reply {
  const body = jsonBody(ctx);
  if (body === undefined)
    return { status: 400, body: [{ classification: 'DeserializationError', message: 'invalid JSON' }] };
  const name = typeof body.name === 'string' ? body.name : '';
  if (name === '') {
    return {
      status: 422,
      body: [{ fieldNames: ['Name'], classification: 'RequiredError', message: 'Required' }],
    };
  }
  const login = ctx.login ?? '';
  if (env.named.some((token) => token.login === login && token.name === name)) {
    return error(
      422,
      `access token already exists: map[name:${name} userID:${env.state.user(login)?.id ?? 0}]`,
    );
  }
  const token = env.state.newToken(login, '', 20);
  env.named.push({ login, name, token });
  return { status: 201, body: { name, sha1: token } };
}
