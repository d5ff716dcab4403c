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
