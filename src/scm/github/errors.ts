import type { SvcError } from '../../core/errors.js';
import { ScmRateLimitError, refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';
import { errorBodySchema } from './schemas.js';

/** The provider's name in error messages. */
export const GITHUB = 'GitHub';

/** GitHub asks clients without reset headers to wait at least a minute (docs: rate limits for the REST API). */
const DEFAULT_WAIT_MS = 60_000;

/**
 * Translates a GitHub refusal into svc's errors (ScmProvider contract): 401 UNAUTHORIZED, an
 * exhausted primary or secondary rate limit a ScmRateLimitError, 403 FORBIDDEN, 404 NOT_FOUND,
 * 422 INVALID_INPUT, anything else INTERNAL.
 */
export function githubError(call: string, response: TransportResponse, now = Date.now()): SvcError {
  const resetAt = rateLimitReset(response, now);
  if (resetAt !== undefined) return new ScmRateLimitError(GITHUB, call, resetAt);
  return refusalByStatus(GITHUB, call, response.status, describeBody(response.text));
}

/**
 * When the answer says the rate limit is exhausted: 429, or 403 with no requests remaining, or a
 * secondary limit's `retry-after`. A plain 403 (missing rights) also carries the headers, with
 * requests remaining, and is not a rate limit.
 */
function rateLimitReset(response: TransportResponse, now: number): Date | undefined {
  if (response.status !== 403 && response.status !== 429) return undefined;
  const retryAfter = Number(response.header('retry-after'));
  if (response.header('retry-after') !== undefined && Number.isFinite(retryAfter)) {
    return new Date(now + retryAfter * 1000);
  }
  const remaining = response.header('x-ratelimit-remaining');
  if (response.status === 403 && remaining !== '0') return undefined;
  const reset = Number(response.header('x-ratelimit-reset'));
  if (response.header('x-ratelimit-reset') !== undefined && Number.isFinite(reset))
    return new Date(reset * 1000);
  return new Date(now + DEFAULT_WAIT_MS);
}

/** GitHub's `message`, with its validation `errors` when present; the raw text when not JSON. */
function describeBody(text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text.trim().slice(0, 200);
  }
  const parsed = errorBodySchema.safeParse(json);
  if (!parsed.success) return '';
  const details = (parsed.data.errors ?? []).map((e) =>
    typeof e === 'string' ? e : (e.message ?? [e.field, e.code].filter(Boolean).join(' ')),
  );
  return [parsed.data.message ?? '', ...details].filter(Boolean).join('; ');
}
