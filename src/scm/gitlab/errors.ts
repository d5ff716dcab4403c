import type { SvcError } from '../../core/errors.js';
import { ScmRateLimitError, refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';

/** The provider's name in error messages. */
export const GITLAB = 'GitLab';

/** GitLab.com asks clients without reset headers to back off; a minute, as for GitHub. */
const DEFAULT_WAIT_MS = 60_000;

/**
 * Translates a GitLab refusal into svc's errors (ScmProvider contract): 429 a ScmRateLimitError
 * carrying `RateLimit-Reset` (epoch seconds) or `Retry-After`; 401 UNAUTHORIZED, 403 FORBIDDEN, 404
 * NOT_FOUND, 400/422 INVALID_INPUT (GitLab's validation and state errors), anything else INTERNAL.
 */
export function gitlabError(call: string, response: TransportResponse, now = Date.now()): SvcError {
  if (response.status === 429) return new ScmRateLimitError(GITLAB, call, resetOf(response, now));
  const status = response.status === 400 ? 422 : response.status;
  return refusalByStatus(GITLAB, call, status, describeBody(response.text));
}

function resetOf(response: TransportResponse, now: number): Date {
  const reset = Number(response.header('ratelimit-reset'));
  if (response.header('ratelimit-reset') !== undefined && Number.isFinite(reset) && reset > 0)
    return new Date(reset * 1000);
  const after = Number(response.header('retry-after'));
  if (response.header('retry-after') !== undefined && Number.isFinite(after))
    return new Date(now + after * 1000);
  return new Date(now + DEFAULT_WAIT_MS);
}

/**
 * GitLab's error text: `message` (a string, or an object of field → problems for validation), else
 * `error` and `error_description`; plain text (Rack::Attack's `Retry later`) as it is.
 */
export function describeBody(text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return text.trim().slice(0, 200);
  }
  if (typeof json !== 'object' || json === null) return '';
  const body = json as { message?: unknown; error?: unknown; error_description?: unknown };
  if (typeof body.message === 'string') return body.message;
  if (typeof body.message === 'object' && body.message !== null) {
    return Object.entries(body.message)
      .map(
        ([field, problems]) =>
          `${field} ${Array.isArray(problems) ? problems.join(', ') : JSON.stringify(problems)}`,
      )
      .join('; ');
  }
  return [body.error, body.error_description].filter((part) => typeof part === 'string').join(': ');
}
