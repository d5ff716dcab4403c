import { z } from 'zod';
import { SvcError } from '../core/errors.js';
import type { ScmOAuth2Login, ScmToken } from '../core/scm.js';
import { providerFailure } from './errors.js';
import { reasonOf, tries } from './rest-client.js';
import { DEFAULT_RETRY, sendWithRetries, type RetryPolicy } from './retry.js';
import type { Transport, TransportResponse } from './transport.js';

/** An OAuth 2 client of a provider's authorization server (RFC 6749). */
export interface OAuth2Client {
  /** The provider's name in error messages. */
  readonly provider: string;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Where the client credentials go: form fields (`body`) or HTTP Basic (RFC 6749 §2.3.1). */
  readonly clientAuth: 'body' | 'basic';
  readonly transport: Transport;
  /**
   * Traces each token request and its answer (SVC_SCMA_DEBUG): the grant, the status and the
   * provider's error; codes, tokens and the client secret are never written.
   */
  readonly trace?: (line: string) => void;
  /** How a token request the provider failed is retried (DEFAULT_RETRY when absent). */
  readonly retry?: RetryPolicy;
}

/** The authorize page's URL (RFC 6749 §4.1.1), with the provider's scope list when it has one. */
export function authorizeUrl(
  client: OAuth2Client,
  state: string,
  redirectUri: string,
  extra: Record<string, string> = {},
): string {
  const query = new URLSearchParams({
    client_id: client.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    state,
    ...extra,
  });
  return `${client.authorizeUrl}?${query.toString()}`;
}

/** The token endpoint's answer (RFC 6749 §5.1) and refusal (§5.2). */
const tokenAnswer = z.object({
  access_token: z.string().optional(),
  refresh_token: z.string().optional(),
  expires_in: z.coerce.number().optional(),
  error: z.string().optional(),
  error_description: z.string().optional(),
});

/** Exchanges an authorization code for the user's token (§4.1.3). */
export function exchangeCode(client: OAuth2Client, code: string, redirectUri: string, now = Date.now()) {
  return tokenRequest(client, { grant_type: 'authorization_code', code, redirect_uri: redirectUri }, now);
}

/** A new token for the refresh token (§6); the old refresh token stays when none comes back. */
export async function refreshToken(
  client: OAuth2Client,
  token: ScmToken,
  now = Date.now(),
): Promise<ScmToken> {
  if (token.refresh === '')
    throw new SvcError('UNAUTHORIZED', `${client.provider}: the token has no refresh token`);
  const fresh = await tokenRequest(
    client,
    { grant_type: 'refresh_token', refresh_token: token.refresh },
    now,
  );
  return { ...fresh, refresh: fresh.refresh || token.refresh };
}

/**
 * One token request, retried when the provider fails on its side or does not answer: a code or
 * refresh token can be used once, so a second request after one the provider did act on is refused
 * (UNAUTHORIZED) — the same outcome as not retrying, while a request that never arrived gets its
 * token. A refusal of the grant (400/401 with an `error`: a used, expired or unknown code
 * or refresh token, wrong client credentials) means the user must log in again: UNAUTHORIZED. A
 * provider that cannot be reached or fails on its side is INTERNAL.
 */
async function tokenRequest(
  client: OAuth2Client,
  grant: Record<string, string>,
  now: number,
): Promise<ScmToken> {
  const what = `POST ${new URL(client.tokenUrl).pathname}`;
  const form = new URLSearchParams(grant);
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/x-www-form-urlencoded',
    'user-agent': 'svc',
  };
  if (client.clientAuth === 'basic') {
    const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  }
  let response: TransportResponse;
  let attempts: number;
  try {
    ({ response, attempts } = await sendWithRetries(
      { policy: client.retry ?? DEFAULT_RETRY, safety: 'idempotent' },
      () => client.transport({ method: 'POST', url: client.tokenUrl, headers, body: form.toString() }),
    ));
  } catch (error) {
    client.trace?.(
      `${client.provider} ${what} grant_type=${grant.grant_type ?? ''}: no answer: ${reasonOf(error)}${tries(error)}`,
    );
    throw providerFailure(client.provider, what, `${reasonOf(error)}${tries(error)}`, error);
  }
  const answer = readAnswer(response);
  client.trace?.(
    `${client.provider} ${what} grant_type=${grant.grant_type ?? ''} client_id=${client.clientId} (${client.clientAuth} auth): ` +
      `HTTP ${response.status}${answer?.error === undefined ? '' : ` error=${answer.error} ${answer.error_description ?? ''}`}` +
      `${answer?.access_token === undefined ? '' : ` access_token=[redacted] expires_in=${answer.expires_in ?? 'none'} refresh_token=${answer.refresh_token === undefined ? 'none' : '[redacted]'}`}`,
  );
  if (
    response.status >= 200 &&
    response.status < 300 &&
    answer?.access_token !== undefined &&
    answer.error === undefined
  ) {
    return {
      token: answer.access_token,
      refresh: answer.refresh_token ?? '',
      expiry: answer.expires_in === undefined || answer.expires_in <= 0 ? 0 : now + answer.expires_in * 1000,
    };
  }
  if (response.status < 500 && (answer?.error !== undefined || response.status === 401)) {
    const reason = answer?.error_description || answer?.error || `HTTP ${response.status}`;
    throw new SvcError('UNAUTHORIZED', `${client.provider} ${what}: ${reason}`);
  }
  throw providerFailure(
    client.provider,
    what,
    `HTTP ${response.status}${answer === undefined || response.status >= 300 ? '' : ' without a token'}${attempts > 1 ? ` (after ${attempts} attempts)` : ''}`,
  );
}

function readAnswer(response: TransportResponse): z.infer<typeof tokenAnswer> | undefined {
  try {
    const parsed = tokenAnswer.safeParse(JSON.parse(response.text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A provider's OAuth 2 login over `client`: its authorize page (with `extra` parameters), the code exchange and refresh. */
export function oauth2LoginOf(client: OAuth2Client, extra: Record<string, string> = {}): ScmOAuth2Login {
  return {
    kind: 'oauth2',
    authorizeUrl: (state, redirectUri) => {
      client.trace?.(
        `${client.provider}: login starts at ${client.authorizeUrl} for client_id=${client.clientId}, back to ${redirectUri}`,
      );
      return authorizeUrl(client, state, redirectUri, extra);
    },
    exchangeCode: (code, redirectUri) => exchangeCode(client, code, redirectUri),
    refresh: (token) => refreshToken(client, token),
  };
}
