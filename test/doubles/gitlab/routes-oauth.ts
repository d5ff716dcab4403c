import { randomBytes } from 'node:crypto';
import type { Context, Reply } from '../forge/router.js';
import type { Env, GitLabRoute } from './env.js';

/**
 * GitLab's OAuth2 provider (Doorkeeper; docs: api/oauth2): `GET /oauth/authorize` answers at once for
 * the double-only `login` parameter's user (else the first); `POST /oauth/token` takes the client's
 * credentials in the form or with HTTP Basic, refuses a used, unknown or mismatched code or refresh
 * token with 400 `invalid_grant` and wrong client credentials with 401 `invalid_client`. Tokens live
 * two hours; a refresh replaces both tokens.
 */
export function oauthRoutes(env: Env): GitLabRoute[] {
  return [
    { method: 'GET', pattern: '/oauth/authorize', handler: (ctx) => authorize(env, ctx) },
    { method: 'POST', pattern: '/oauth/token', handler: (ctx) => token(env, ctx) },
  ];
}

function authorize(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  const redirect = query.get('redirect_uri');
  if (query.get('client_id') !== env.app.clientId || redirect === null) {
    return {
      status: 200,
      text: '<h1>An error has occurred</h1><p>Client authentication failed due to unknown client.</p>',
    };
  }
  const target = new URL(redirect);
  const state = query.get('state');
  if (state !== null) target.searchParams.set('state', state);
  const scopes = (query.get('scope') ?? 'api').split(/[ +]/);
  if (
    scopes.some(
      (scope) =>
        ![
          'api',
          'read_user',
          'read_api',
          'read_repository',
          'write_repository',
          'openid',
          'profile',
          'email',
        ].includes(scope),
    )
  ) {
    target.searchParams.set('error', 'invalid_scope');
    target.searchParams.set('error_description', 'The requested scope is invalid, unknown, or malformed.');
    return { status: 302, headers: { location: target.href }, text: '' };
  }
  const login = query.get('login') ?? [...env.state.users.values()][0]?.login ?? '';
  const code = randomBytes(32).toString('hex');
  env.codes.set(code, { login, redirectUri: redirect });
  target.searchParams.set('code', code);
  return { status: 302, headers: { location: target.href }, text: '' };
}

const INVALID_GRANT = {
  error: 'invalid_grant',
  error_description:
    'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
};

function token(env: Env, ctx: Context): Reply {
  const fields = new URLSearchParams(ctx.body.toString('utf8'));
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.headers.authorization ?? '')?.[1];
  const [id, secret] =
    basic === undefined
      ? [fields.get('client_id'), fields.get('client_secret')]
      : Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent);
  if (id !== env.app.clientId || secret !== env.app.clientSecret) {
    return {
      status: 401,
      body: {
        error: 'invalid_client',
        error_description:
          'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      },
    };
  }
  switch (fields.get('grant_type') ?? '') {
    case 'authorization_code': {
      const grant = env.codes.get(fields.get('code') ?? '');
      env.codes.delete(fields.get('code') ?? '');
      if (grant === undefined || grant.redirectUri !== fields.get('redirect_uri'))
        return { status: 400, body: INVALID_GRANT };
      return { status: 200, body: issue(env, grant.login) };
    }
    case 'refresh_token': {
      const old = fields.get('refresh_token') ?? '';
      const login = env.refresh.get(old);
      if (login === undefined) return { status: 400, body: INVALID_GRANT };
      env.refresh.delete(old);
      return { status: 200, body: issue(env, login) };
    }
    default:
      return {
        status: 400,
        body: {
          error: 'unsupported_grant_type',
          error_description: 'The authorization grant type is not supported by the authorization server.',
        },
      };
  }
}

function issue(env: Env, login: string) {
  const access = randomBytes(32).toString('hex');
  const refresh = randomBytes(32).toString('hex');
  env.access.set(access, { login, expires: env.now() + 7_200_000 });
  env.refresh.set(refresh, login);
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: 7200,
    refresh_token: refresh,
    scope: 'api',
    created_at: Math.floor(env.now() / 1000),
  };
}
