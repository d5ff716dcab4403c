import { randomBytes } from 'node:crypto';
import type { Env } from './env.js';
import type { Context, Reply, Route } from './http.js';

/** Codes expire after ten minutes (docs: authorizing-oauth-apps, step 2). */
export const CODE_LIFETIME_MS = 10 * 60_000;

/** Hands out a code for a user, as the authorize page does once the user agreed. */
export function grant(env: Env, login: string, redirectUri: string | undefined): string {
  const user = env.state.user(login);
  if (user === undefined) throw new Error(`GitHub double: no user ${login}`);
  const code = randomBytes(10).toString('hex');
  env.state.grants.set(code, { login: user.login, redirectUri, expires: Date.now() + CODE_LIFETIME_MS });
  return code;
}

/**
 * The OAuth web flow (docs: apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps). The authorize
 * page has no one to ask, so it acts for the user named by the double-only `login` parameter, else
 * for the first user added, and redirects at once.
 */
export function oauthRoutes(env: Env): Route[] {
  return [
    { method: 'GET', pattern: '/login/oauth/authorize', handler: (ctx) => authorize(env, ctx) },
    { method: 'POST', pattern: '/login/oauth/access_token', handler: (ctx) => accessToken(env, ctx) },
  ];
}

function authorize(env: Env, ctx: Context): Reply {
  const query = ctx.url.searchParams;
  if (query.get('client_id') !== env.app.clientId) return { status: 404, text: '<h1>Not Found</h1>' };
  const login = query.get('login') ?? [...env.state.users.values()][0]?.login;
  if (login === undefined || env.state.user(login) === undefined) {
    return { status: 401, text: '<h1>Sign in to GitHub</h1>' };
  }
  const redirectUri = query.get('redirect_uri') ?? undefined;
  if (redirectUri === undefined)
    return { status: 400, text: '<h1>redirect_uri is required by this double</h1>' };
  const target = new URL(redirectUri);
  target.searchParams.set('code', grant(env, login, redirectUri));
  const state = query.get('state');
  if (state !== null) target.searchParams.set('state', state);
  return { status: 302, headers: { location: target.href }, text: '' };
}

/** GitHub answers refusals with 200 and an `error` (docs: troubleshooting OAuth app access token request errors). */
function accessToken(env: Env, ctx: Context): Reply {
  const params = formOrJson(ctx);
  const basic = basicAuth(ctx.headers.authorization);
  const clientId = params.get('client_id') ?? basic?.[0];
  const clientSecret = params.get('client_secret') ?? basic?.[1];
  const wantsJson = (ctx.headers.accept ?? '').includes('json');
  if (clientId !== env.app.clientId || clientSecret !== env.app.clientSecret) {
    return answer(wantsJson, {
      error: 'incorrect_client_credentials',
      error_description: 'The client_id and/or client_secret passed are incorrect.',
    });
  }
  const code = params.get('code') ?? '';
  const grant = env.state.grants.get(code);
  env.state.grants.delete(code);
  if (grant === undefined || grant.expires < Date.now()) {
    return answer(wantsJson, {
      error: 'bad_verification_code',
      error_description: 'The code passed is incorrect or expired.',
    });
  }
  const redirectUri = params.get('redirect_uri');
  if (redirectUri !== null && grant.redirectUri !== undefined && redirectUri !== grant.redirectUri) {
    return answer(wantsJson, {
      error: 'redirect_uri_mismatch',
      error_description: 'The redirect_uri MUST match the registered callback URL for this application.',
    });
  }
  return answer(wantsJson, {
    access_token: env.state.newToken(grant.login),
    token_type: 'bearer',
    scope: 'repo,repo:status,user:email,read:org',
  });
}

/** Form-encoded by default, JSON with `Accept: application/json`, like GitHub. */
function answer(wantsJson: boolean, fields: Record<string, string>): Reply {
  if (wantsJson) return { status: 200, body: fields };
  return {
    status: 200,
    text: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
  };
}

function formOrJson(ctx: Context): URLSearchParams {
  const params = new URLSearchParams(ctx.url.search);
  const text = ctx.body.toString('utf8');
  if ((ctx.headers['content-type'] ?? '').includes('json')) {
    try {
      for (const [key, value] of Object.entries(JSON.parse(text) as Record<string, unknown>)) {
        if (typeof value === 'string') params.set(key, value);
      }
    } catch {
      return params;
    }
    return params;
  }
  for (const [key, value] of new URLSearchParams(text)) params.set(key, value);
  return params;
}

function basicAuth(header: string | undefined): [string, string] | undefined {
  const encoded = /^Basic\s+(.+)$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}
