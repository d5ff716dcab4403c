import { randomBytes } from 'node:crypto';
import type { Context, Reply } from '../forge/router.js';
import type { Env, GiteaRoute } from './env.js';

/**
 * Gitea's OAuth2 provider (docs: "OAuth2 provider"): `GET /login/oauth/authorize` answers at once
 * for the user the double-only `login` parameter names (else the first user), as Gitea does for an
 * app the user already granted; `POST /login/oauth/access_token` takes a form or JSON, the client's
 * credentials in the body or with HTTP Basic, and answers every refusal with 400 and an `error`.
 * Codes are single use; access tokens expire (`lifetime`); refresh tokens are single use when
 * `rotate` is on (Forgejo's default).
 */
export function oauthRoutes(env: Env): GiteaRoute[] {
  return [
    {
      method: 'GET',
      pattern: '/login/oauth/authorize',
      auth: 'optional',
      handler: (ctx) => authorize(env, ctx),
    },
    {
      method: 'POST',
      pattern: '/login/oauth/access_token',
      auth: 'optional',
      handler: (ctx) => accessToken(env, ctx),
    },
  ];
}

const page400 = (text: string): Reply => ({ status: 400, text: `<html><body>${text}</body></html>` });

function authorize(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  if (query.get('client_id') !== env.app.clientId) return page400('Client ID not registered');
  const redirect = query.get('redirect_uri');
  if (redirect === null) return page400('Unregistered Redirect URI');
  const target = new URL(redirect);
  const state = query.get('state');
  if (state !== null) target.searchParams.set('state', state);
  if (query.get('response_type') !== 'code') {
    target.searchParams.set('error', 'unsupported_response_type');
    target.searchParams.set('error_description', 'Only code response type is supported.');
    return { status: 302, headers: { location: target.href }, text: '' };
  }
  const login = query.get('login') ?? [...env.state.users.values()][0]?.login;
  if (login === undefined) return page400('no user');
  const code = `gta_${randomBytes(20).toString('hex')}`;
  env.codes.set(code, login);
  target.searchParams.set('code', code);
  return { status: 302, headers: { location: target.href }, text: '' };
}

function fieldsOf(ctx: Context): URLSearchParams {
  const text = ctx.body.toString('utf8');
  if ((ctx.headers['content-type'] ?? '').includes('json')) {
    try {
      return new URLSearchParams(JSON.parse(text) as Record<string, string>);
    } catch {
      return new URLSearchParams();
    }
  }
  return new URLSearchParams(text);
}

const refusal = (error: string, description: string): Reply => ({
  status: 400,
  body: { error, error_description: description },
});

function accessToken(env: Env, ctx: Context): Reply {
  const fields = fieldsOf(ctx);
  const basic = /^Basic\s+(\S+)$/i.exec(ctx.headers.authorization ?? '')?.[1];
  const [basicId, basicSecret] =
    basic === undefined ? [] : Buffer.from(basic, 'base64').toString('utf8').split(':');
  const clientId = fields.get('client_id') || (basicId === undefined ? '' : decodeURIComponent(basicId));
  const secret =
    fields.get('client_secret') || (basicSecret === undefined ? '' : decodeURIComponent(basicSecret));
  if (clientId !== env.app.clientId)
    return refusal('invalid_client', `cannot load client with client id: '${clientId}'`);
  const grant = fields.get('grant_type');
  if (grant === 'authorization_code') {
    if (secret !== env.app.clientSecret) return refusal('unauthorized_client', 'invalid client secret');
    const code = fields.get('code') ?? '';
    const login = env.codes.get(code);
    if (login === undefined) return refusal('unauthorized_client', 'client is not authorized');
    env.codes.delete(code);
    return { status: 200, body: issue(env, login) };
  }
  if (grant === 'refresh_token') {
    if (secret !== env.app.clientSecret) return refusal('invalid_client', 'invalid client secret');
    const old = fields.get('refresh_token') ?? '';
    const login = env.refresh.get(old);
    if (login === undefined) return refusal('unauthorized_client', 'unable to parse refresh token');
    if (env.rotate) env.refresh.delete(old);
    return { status: 200, body: issue(env, login) };
  }
  return refusal(
    'unsupported_grant_type',
    'Only refresh_token or authorization_code grant type is supported',
  );
}

/** A new token pair; both are JWT-like (they contain dots, as Gitea's do). */
function issue(env: Env, login: string) {
  const access = `eyJhbGciOiJSUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(8).toString('hex')}`;
  const refresh = `eyJhbGciOiJSUzI1NiJ9.${randomBytes(24).toString('base64url')}.${randomBytes(8).toString('hex')}`;
  env.access.set(access, { login, expires: env.now() + env.lifetime * 1000 });
  env.refresh.set(refresh, login);
  return { access_token: access, token_type: 'bearer', expires_in: env.lifetime, refresh_token: refresh };
}
