import type { SvcError } from '../../core/errors.js';
import { ScmRateLimitError, refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';

/** The provider's name in error messages. */
export const BITBUCKET_SERVER = 'Bitbucket Server';

/** When a 429 does not say how long to wait. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * Translates a Bitbucket Server refusal into svc's errors (ScmProvider contract). Bitbucket answers
 * 401 both for a rejected OAuth token (`oauth_problem=…`) and for a signed-in user who lacks a
 * permission (`AuthorisationException`): the first is UNAUTHORIZED, the second FORBIDDEN. 429 is
 * the rate limit of Data Center (`Retry-After` in seconds), 400 invalid input.
 */
export function bitbucketServerError(call: string, response: TransportResponse, now = Date.now()): SvcError {
  if (response.status === 429) {
    const after = Number(response.header('retry-after'));
    const wait =
      response.header('retry-after') !== undefined && Number.isFinite(after) ? after * 1000 : DEFAULT_WAIT_MS;
    return new ScmRateLimitError(BITBUCKET_SERVER, call, new Date(now + wait));
  }
  const { message, exception } = describeBody(response.text);
  const status =
    response.status === 401 && exception.endsWith('AuthorisationException')
      ? 403
      : response.status === 400
        ? 422
        : response.status;
  return refusalByStatus(BITBUCKET_SERVER, call, status, message);
}

/**
 * The error envelope `{"errors":[{"context","message","exceptionName"}]}`, or an OAuth problem
 * (`oauth_problem=token_rejected`), as one line.
 */
export function describeBody(text: string): { message: string; exception: string } {
  try {
    const body = JSON.parse(text) as { errors?: { message?: unknown; exceptionName?: unknown }[] };
    const errors = Array.isArray(body.errors) ? body.errors : [];
    return {
      message: errors
        .map((error) => (typeof error.message === 'string' ? error.message : ''))
        .filter((message) => message !== '')
        .join('; '),
      exception: typeof errors[0]?.exceptionName === 'string' ? errors[0].exceptionName : '',
    };
  } catch {
    const problem = new URLSearchParams(text.trim()).get('oauth_problem');
    return { message: problem === null ? text.trim().slice(0, 200) : `OAuth: ${problem}`, exception: '' };
  }
}
