import type { KeyObject } from 'node:crypto';
import { SvcError } from '../core/errors.js';
import type { ScmOAuth1Login, ScmToken } from '../core/scm.js';
import { providerFailure } from './errors.js';
import { oauth1Authorization } from './oauth1.js';
import { reasonOf } from './rest-client.js';
import type { Transport, TransportResponse } from './transport.js';

/** An OAuth 1.0a consumer (RFC 5849) signing with RSA-SHA1, and its provider's three endpoints. */
export interface OAuth1Consumer {
  /** The provider's name in error messages. */
  readonly provider: string;
  readonly requestTokenUrl: string;
  readonly authorizeUrl: string;
  readonly accessTokenUrl: string;
  readonly consumerKey: string;
  readonly privateKey: KeyObject;
  readonly transport: Transport;
  readonly now?: () => number;
}

/**
 * The three legs of RFC 5849 §2: temporary credentials (a POST whose only parameters are the signed
 * `oauth_*` ones, `oauth_callback` among them), the user's authorization in the browser, and token
 * credentials for the request token and its verifier.
 */
export function oauth1LoginOf(consumer: OAuth1Consumer): ScmOAuth1Login {
  return {
    kind: 'oauth1',
    async start(callbackUrl) {
      const answer = await tokenRequest(consumer, consumer.requestTokenUrl, undefined, {
        oauth_callback: callbackUrl,
      });
      const requestToken = answer.get('oauth_token');
      if (!requestToken)
        throw providerFailure(consumer.provider, 'POST request-token', 'the answer has no oauth_token');
      const authorizeUrl = new URL(consumer.authorizeUrl);
      authorizeUrl.searchParams.set('oauth_token', requestToken);
      return { requestToken, authorizeUrl: authorizeUrl.href };
    },
    async exchange(requestToken, verifier) {
      if (verifier === 'denied')
        throw new SvcError('UNAUTHORIZED', `${consumer.provider}: the user denied svc access`);
      const answer = await tokenRequest(consumer, consumer.accessTokenUrl, requestToken, {
        oauth_verifier: verifier,
      });
      const token = answer.get('oauth_token');
      if (!token)
        throw providerFailure(consumer.provider, 'POST access-token', 'the answer has no oauth_token');
      const expiresIn = Number(answer.get('oauth_expires_in'));
      const now = (consumer.now ?? Date.now)();
      // The token secret takes no part in RSA-SHA1 signatures, and svc does not renew sessions
      // (the tokens live five years by default): only the token is kept, with its expiry.
      const scmToken: ScmToken = {
        token,
        refresh: '',
        expiry: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : 0,
      };
      return scmToken;
    },
  };
}

/**
 * One POST to a token endpoint, its parameters in the signed Authorization header and no body. A
 * refusal (`oauth_problem=…`, 400 or 401) means the login cannot go on: UNAUTHORIZED with the
 * problem named; an unreachable or failing provider is INTERNAL.
 */
async function tokenRequest(
  consumer: OAuth1Consumer,
  url: string,
  token: string | undefined,
  extra: Record<string, string>,
): Promise<URLSearchParams> {
  const call = `POST ${new URL(url).pathname}`;
  const authorization = oauth1Authorization({
    method: 'POST',
    url,
    consumerKey: consumer.consumerKey,
    privateKey: consumer.privateKey,
    ...(token === undefined ? {} : { token }),
    extra,
    timestamp: Math.floor((consumer.now ?? Date.now)() / 1000),
  });
  let response: TransportResponse;
  try {
    response = await consumer.transport({
      method: 'POST',
      url,
      headers: { authorization, accept: 'text/plain', 'user-agent': 'svc' },
    });
  } catch (error) {
    throw providerFailure(consumer.provider, call, reasonOf(error), error);
  }
  const answer = new URLSearchParams(response.text.trim());
  if (response.status >= 200 && response.status < 300) return answer;
  const problem = answer.get('oauth_problem') ?? problemOfHeader(response.header('www-authenticate'));
  if ((response.status === 400 || response.status === 401) && problem !== undefined) {
    const advice = answer.get('oauth_problem_advice');
    throw new SvcError(
      'UNAUTHORIZED',
      `${consumer.provider} ${call}: OAuth refused (${problem}${advice ? `: ${advice}` : ''})${hintOf(problem)}`,
    );
  }
  throw providerFailure(consumer.provider, call, `HTTP ${response.status}`);
}

/** `WWW-Authenticate: OAuth realm="…", oauth_problem="…"`. */
function problemOfHeader(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /oauth_problem="([^"]*)"/.exec(header)?.[1];
}

/** What an administrator should check for the problems a misconfigured application link causes. */
function hintOf(problem: string): string {
  switch (problem) {
    case 'consumer_key_unknown':
      return '; the consumer key is not that of an application link with incoming authentication';
    case 'signature_invalid':
      return '; the public key of the application link does not match the private key svc signs with';
    case 'timestamp_refused':
      return '; the clocks of svc and the git server differ by more than a few minutes';
    default:
      return '';
  }
}
