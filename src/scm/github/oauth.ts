import { SvcError } from '../../core/errors.js';
import type { ScmToken } from '../../core/scm.js';
import { providerFailure } from '../errors.js';
import { reasonOf, tries } from '../rest-client.js';
import { DEFAULT_RETRY, sendWithRetries } from '../retry.js';
import type { Transport, TransportResponse } from '../transport.js';
import { GITHUB, githubError } from './errors.js';
import type { GitHubEndpoints } from './options.js';
import { accessTokenSchema } from './schemas.js';

/** The OAuth app and what it asks for. */
export interface OAuthApp {
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

/**
 * GitHub's authorize page (docs: apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps, step 1).
 * Scopes are space-separated.
 */
export function authorizeUrl(endpoints: GitHubEndpoints, app: OAuthApp, state: string, redirectUri: string) {
  const query = new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: app.scopes.join(' '),
    state,
  });
  return `${endpoints.authorize}?${query.toString()}`;
}

/**
 * Exchanges the code GitHub sent back for the user's token (step 2). GitHub answers refusals (a used
 * or expired code, wrong client credentials, another redirect URI) with 200 and an `error` field: the
 * user must log in again, so they are UNAUTHORIZED. Expiring tokens come with a refresh token.
 */
export async function exchangeCode(
  transport: Transport,
  endpoints: GitHubEndpoints,
  app: OAuthApp,
  code: string,
  redirectUri: string,
  now = Date.now(),
): Promise<ScmToken> {
  const what = 'POST /login/oauth/access_token';
  const body = new URLSearchParams({
    client_id: app.clientId,
    client_secret: app.clientSecret,
    code,
    redirect_uri: redirectUri,
  }).toString();
  const headers = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': 'svc',
  };
  let response: TransportResponse;
  try {
    // Retried like every token request (oauth2.ts): a code GitHub did use is refused the second time.
    ({ response } = await sendWithRetries({ policy: DEFAULT_RETRY, safety: 'idempotent' }, () =>
      transport({ method: 'POST', url: endpoints.accessToken, headers, body }),
    ));
  } catch (error) {
    throw providerFailure(GITHUB, what, `${reasonOf(error)}${tries(error)}`, error);
  }
  if (response.status < 200 || response.status >= 300) throw githubError(what, response);
  let json: unknown;
  try {
    json = JSON.parse(response.text);
  } catch (error) {
    throw providerFailure(GITHUB, what, 'the answer is not JSON', error);
  }
  const parsed = accessTokenSchema.safeParse(json);
  if (!parsed.success) throw providerFailure(GITHUB, what, 'the answer does not have the documented shape');
  const answer = parsed.data;
  if (answer.error !== undefined || answer.access_token === undefined) {
    const reason = answer.error_description ?? answer.error ?? 'no access token in the answer';
    throw new SvcError('UNAUTHORIZED', `${GITHUB} ${what}: ${reason}`);
  }
  return {
    token: answer.access_token,
    refresh: answer.refresh_token ?? '',
    expiry: answer.expires_in === undefined ? 0 : now + answer.expires_in * 1000,
  };
}
