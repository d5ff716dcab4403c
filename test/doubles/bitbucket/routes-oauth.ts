import { randomBytes } from 'node:crypto';
import type { Context, Reply } from '../forge/router.js';
import type { BitbucketRoute, Env } from './env.js';

/**
 * Bitbucket's OAuth 2 (developer.atlassian.com "OAuth 2.0"): `GET /site/oauth2/authorize` answers at
 * once for the double-only `login` parameter's user (else the first); a `redirect_uri` must extend the
 * consumer's callback (here: any). `POST /site/oauth2/access_token` takes the consumer's key and
 * secret with HTTP Basic and a form body; refusals are RFC 6749 errors with 400. Tokens live two
 * hours; refresh tokens are kept across refreshes.
 */
export function oauthRoutes(env: Env): BitbucketRoute[] {
  return [
    { method: 'GET', pattern: '/site/oauth2/authorize', handler: (ctx) => authorize(env, ctx) },
    { method: 'POST', pattern: '/site/oauth2/access_token', handler: (ctx) => token(env, ctx) },
  ];
}

function authorize(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  if (query.get('client_id') !== env.app.key) return { status: 400, text: '<h1>Invalid client_id</h1>' };
  const redirect = query.get('redirect_uri');
  if (redirect === null)
    return { status: 400, text: '<h1>Invalid redirect_uri</h1><p>This integration is misconfigured.</p>' };
  const target = new URL(redirect);
  const login = query.get('login') ?? [...env.state.users.values()][0]?.login ?? '';
  const code = randomBytes(9).toString('base64url');
  env.codes.set(code, login);
  target.searchParams.set('code', code);
  const state = query.get('state');
  if (state !== null) target.searchParams.set('state', state);
  return { status: 302, headers: { location: target.href }, text: '' };
}

function token(env: Env, ctx: Context): Reply {
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.headers.authorization ?? '')?.[1];
  const [key, secret] =
    basic === undefined ? [] : Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent);
  if (key !== env.app.key || secret !== env.app.secret) {
    return {
      status: 400,
      body: {
        error_description: 'Requests must be authenticated using OAuth client credentials',
        error: 'unauthorized_client',
      },
    };
  }
  const fields = new URLSearchParams(ctx.body.toString('utf8'));
  switch (fields.get('grant_type') ?? '') {
    case 'authorization_code': {
      const code = fields.get('code') ?? '';
      const login = env.codes.get(code);
      env.codes.delete(code);
      if (login === undefined)
        return {
          status: 400,
          body: { error_description: 'The specified code is not valid.', error: 'invalid_grant' },
        };
      return { status: 200, body: issue(env, login, 'authorization_code') };
    }
    case 'refresh_token': {
      const old = fields.get('refresh_token') ?? '';
      const login = env.refresh.get(old);
      if (login === undefined)
        return { status: 400, body: { error_description: 'Invalid refresh_token', error: 'invalid_grant' } };
      return { status: 200, body: issue(env, login, 'refresh_token', old) };
    }
    default:
      return {
        status: 400,
        body: {
          error_description: `Unsupported grant type: ${fields.get('grant_type') ?? 'None'}`,
          error: 'unsupported_grant_type',
        },
      };
  }
}

function issue(env: Env, login: string, grant: string, refresh = randomBytes(9).toString('base64url')) {
  const access = randomBytes(40).toString('base64url');
  env.access.set(access, { login, expires: env.now() + 7_200_000 });
  env.refresh.set(refresh, login);
  return {
    access_token: access,
    scopes: 'account email repository pullrequest webhook',
    expires_in: 7200,
    token_type: 'bearer',
    state: grant,
    refresh_token: refresh,
  };
}
