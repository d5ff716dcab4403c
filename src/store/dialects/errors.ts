import { DatabaseError } from '../../core/errors.js';

/**
 * A one-line reason from a driver error, without its stack. Node reports a refused connection to a
 * name with several addresses as an AggregateError with an empty message: use its first cause.
 */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return describeError(error.errors[0]);
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message.split('\n')[0] ?? '';
    if (message !== '') return message;
    return typeof code === 'string' ? code : error.name;
  }
  return String(error);
}

/** The refusal to start when the database cannot be reached or opened; `failure` says what failed where. */
export function unavailable(failure: string, error: unknown): DatabaseError {
  return new DatabaseError('DATABASE_UNAVAILABLE', `${failure}: ${describeError(error)}`, { cause: error });
}

/** The driver error's `code` property (SQLite and PostgreSQL report SQL errors this way). */
export function errorCode(error: unknown): unknown {
  return error instanceof Error ? (error as { code?: unknown }).code : undefined;
}
