import type { SvcError } from '../../core/errors.js';
import { refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';
import { errorBodySchema } from './schemas.js';

/** The provider's name in error messages. */
export const GITEA = 'Gitea';

/**
 * Translates a Gitea refusal into svc's errors (ScmProvider contract): 401 UNAUTHORIZED, 403
 * FORBIDDEN, 404 NOT_FOUND, 422 INVALID_INPUT, anything else INTERNAL. Gitea has no rate limits of
 * its own.
 */
export function giteaError(call: string, response: TransportResponse): SvcError {
  return refusalByStatus(GITEA, call, response.status, describeBody(response.text));
}

/** The `message` of Gitea's JSON error (some 404s have `null` or an empty body). */
function describeBody(text: string): string {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.message : '';
  } catch {
    return '';
  }
}
