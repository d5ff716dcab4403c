import { SvcError } from '../../core/errors.js';
import { ScmRateLimitError, refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';

/** The provider's name in error messages. */
export const BITBUCKET = 'Bitbucket';

/** Bitbucket's 429 says nothing of when the hourly window frees up: a minute's wait is asked for. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * Bitbucket's 555: generating a diff or diffstat took too long (its API reference documents the
 * status for the diffstat). Not retried: the same diff would take as long again.
 */
export class BitbucketDiffTimeout extends SvcError {
  constructor(call: string) {
    super('INTERNAL', `${BITBUCKET} ${call}: generating the diff timed out (HTTP 555)`);
  }
}

/**
 * Translates a Bitbucket refusal into svc's errors (ScmProvider contract): 429 a rate limit (plain
 * text, no reset header), 401 UNAUTHORIZED, 403 FORBIDDEN, 404 NOT_FOUND, 400 INVALID_INPUT, 555 a
 * BitbucketDiffTimeout, 410 (the APIs Atlassian removed) and anything else INTERNAL.
 */
export function bitbucketError(call: string, response: TransportResponse, now = Date.now()): SvcError {
  if (response.status === 555) return new BitbucketDiffTimeout(call);
  if (response.status === 429) {
    const after = Number(response.header('retry-after'));
    const wait =
      response.header('retry-after') !== undefined && Number.isFinite(after) ? after * 1000 : DEFAULT_WAIT_MS;
    return new ScmRateLimitError(BITBUCKET, call, new Date(now + wait));
  }
  return refusalByStatus(
    BITBUCKET,
    call,
    response.status === 400 ? 422 : response.status,
    describeBody(response.text),
  );
}

/** The error envelope's message: `{"type":"error","error":{"message":…}}`; plain text as it is. */
export function describeBody(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } };
    return typeof body.error?.message === 'string' ? body.error.message : '';
  } catch {
    return text.trim().slice(0, 200);
  }
}
