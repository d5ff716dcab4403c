import { SvcError, type ErrorCode } from '../../core/errors.js';

/**
 * A protocol request that failed: `status` is the HTTP status, 0 when no answer came. `retriable`
 * says whether sending it again may work (no answer, 5xx, 408, 429); the others are the server's
 * final word — 409 above all: someone else changed the stage (another runner, the watchdog).
 */
export class RpcError extends SvcError {
  readonly status: number;
  readonly retriable: boolean;

  constructor(status: number, message: string, options?: { cause?: unknown }) {
    super(codeOf(status), message, options);
    this.status = status;
    this.retriable = status === 0 || status >= 500 || status === 408 || status === 429;
  }
}

function codeOf(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'INVALID_INPUT';
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 409:
      return 'CONFLICT';
    case 429:
      return 'RATE_LIMITED';
    default:
      return 'INTERNAL';
  }
}

/** The error means "the server says no" to this stage: it was taken, changed or ended by someone else. */
export function isConflict(error: unknown): boolean {
  return error instanceof RpcError && error.status === 409;
}

/** Sending the request again may work. */
export function isRetriable(error: unknown): boolean {
  return error instanceof RpcError && error.retriable;
}
