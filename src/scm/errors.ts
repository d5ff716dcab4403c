import { SvcError } from '../core/errors.js';

/**
 * The provider refuses calls until its rate limit resets: RATE_LIMITED (HTTP 429 to svc's own
 * clients), carrying the reset time so that callers can wait or tell the user when to retry.
 */
export class ScmRateLimitError extends SvcError {
  readonly resetAt: Date;

  constructor(provider: string, call: string, resetAt: Date) {
    super('RATE_LIMITED', `${provider} ${call}: rate limit exhausted; it resets at ${resetAt.toISOString()}`);
    this.resetAt = resetAt;
  }
}

/** The provider could not be reached or failed on its side (network, TLS, 5xx, unreadable answer). */
export function providerFailure(provider: string, call: string, reason: string, cause?: unknown): SvcError {
  return new SvcError(
    'INTERNAL',
    `${provider} ${call}: ${reason}`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * A provider's refusal by its HTTP status (ScmProvider contract): 401 UNAUTHORIZED, 403 FORBIDDEN,
 * 404 NOT_FOUND, 422 INVALID_INPUT, anything else the provider's failure. `detail` is what the
 * provider's error body said (empty when nothing).
 */
export function refusalByStatus(provider: string, call: string, status: number, detail: string): SvcError {
  const message = `${provider} ${call}: ${detail || `HTTP ${status}`}`;
  switch (status) {
    case 401:
      return new SvcError('UNAUTHORIZED', message);
    case 403:
      return new SvcError('FORBIDDEN', message);
    case 404:
      return new SvcError('NOT_FOUND', message);
    case 422:
      return new SvcError('INVALID_INPUT', message);
    default:
      return providerFailure(provider, call, `HTTP ${status}${detail ? ` ${detail}` : ''}`);
  }
}
