import { SvcError, type ErrorCode } from '../../../core/errors.js';

/**
 * A Docker Engine API call answered with an error status. `statusCode` is the HTTP status (cleanup
 * treats 404 "gone" and 409 "already going" as benign); the message is Docker's own `message`.
 */
export class DockerApiError extends SvcError {
  readonly statusCode: number;

  constructor(statusCode: number, message: string, options?: { cause?: unknown }) {
    super(codeOf(statusCode), message, options);
    this.statusCode = statusCode;
  }
}

function codeOf(status: number): ErrorCode {
  if (status === 404) return 'NOT_FOUND';
  if (status === 409) return 'CONFLICT';
  if (status === 401) return 'UNAUTHORIZED';
  if (status === 403) return 'FORBIDDEN';
  if (status === 400) return 'INVALID_INPUT';
  return 'INTERNAL';
}

/**
 * The error for a response with status `status` and body `body`: Docker answers errors with
 * `{"message": …}`; anything else (a proxy's HTML page) falls back to the request and status.
 */
export function apiError(status: number, body: string, request: string): DockerApiError {
  let message: unknown;
  try {
    message = (JSON.parse(body) as { message?: unknown } | null)?.message;
  } catch {
    // not JSON: the fallback below says what was asked
  }
  const text =
    typeof message === 'string' && message !== ''
      ? message
      : `${request}: HTTP ${status}${body.trim() ? ` ${body.trim().slice(0, 200)}` : ''}`;
  return new DockerApiError(status, text);
}

/** The HTTP status of a Docker API error, if it has one. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}
