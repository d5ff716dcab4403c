import type { SvcError } from '../../core/errors.js';
import { refusalByStatus } from '../errors.js';
import type { TransportResponse } from '../transport.js';
import { errorBodySchema } from './schemas.js';

/** The provider's name in error messages. */
export const GOGS = 'Gogs';

/**
 * Translates a Gogs refusal into svc's errors (ScmProvider contract): 401 UNAUTHORIZED, 403
 * FORBIDDEN, 404 NOT_FOUND, 422 INVALID_INPUT, anything else INTERNAL. Gogs has no rate limits.
 */
export function gogsError(call: string, response: TransportResponse): SvcError {
  return refusalByStatus(GOGS, call, response.status, describeBody(response.text));
}

/**
 * The `message` of a JSON error. Many Gogs refusals have an empty body, and unknown routes answer
 * with an HTML page: neither says more than the status does.
 */
function describeBody(text: string): string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return '';
  }
  const parsed = errorBodySchema.safeParse(json);
  return parsed.success ? parsed.data.message : '';
}
