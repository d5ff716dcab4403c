import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, type ErrorCode } from '../core/errors.js';

/** The one place where svc's error codes become HTTP status codes. */
export function httpStatusOf(code: ErrorCode): number {
  switch (code) {
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
    case 'STALE_VERSION':
      return 409;
    case 'INVALID_INPUT':
    case 'INVALID_SETTINGS':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'RATE_LIMITED':
      return 429;
    case 'DATABASE_UNAVAILABLE':
      return 503;
    case 'DATABASE_FULL':
      // Insufficient Storage: the request may work once an administrator frees disk space.
      return 507;
    case 'DATABASE_TOO_NEW':
    case 'SECRET_KEY_MISSING':
    case 'SECRET_KEY_WRONG':
    case 'ENCRYPTED_VALUE_INVALID':
    case 'INTERNAL':
      return 500;
  }
}

/** The body of every error response: a stable code and a message for people, never a stack trace. */
export interface ErrorBody {
  code: string;
  message: string;
}

/**
 * Fastify error handler: SvcErrors keep their code and message; fastify's own client errors
 * (bad JSON, body too large) keep their status; anything else is logged and answered as a bare 500.
 */
export function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const unavailable = databaseAnswer(error);
  if (unavailable !== undefined) {
    // Every request fails alike while the database is gone: one line each, no stack, in the log.
    request.log.warn(
      { code: unavailable.code, reason: (error as Error).message, method: request.method, url: request.url },
      unavailable.code === 'DATABASE_FULL' ? 'database out of disk space' : 'database unavailable',
    );
    void reply
      .status(httpStatusOf(unavailable.code))
      .header('retry-after', RETRY_AFTER_SECONDS)
      .send(unavailable);
    return;
  }
  if (error instanceof SvcError) {
    const status = httpStatusOf(error.code);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).send({ code: error.code, message: error.message } satisfies ErrorBody);
    return;
  }
  const fastifyError = error as Partial<FastifyError>;
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    void reply
      .status(status)
      .send({ code: fastifyError.code ?? 'INVALID_INPUT', message: clientMessage(request, fastifyError) });
    return;
  }
  request.log.error({ err: error }, 'request failed');
  void reply.status(500).send({ code: 'INTERNAL', message: 'internal server error' } satisfies ErrorBody);
}

/** What clients are told to wait before trying again while the database is unavailable. */
const RETRY_AFTER_SECONDS = '5';

/**
 * The answer to a request that failed because the database cannot serve now (DATABASE_UNAVAILABLE
 * or DATABASE_FULL, see src/store/dialects/guard.ts). The message says what is wrong without the
 * database's address or file, which the server's log has.
 */
function databaseAnswer(
  error: unknown,
): (ErrorBody & { code: 'DATABASE_UNAVAILABLE' | 'DATABASE_FULL' }) | undefined {
  if (!(error instanceof SvcError)) return undefined;
  if (error.code === 'DATABASE_UNAVAILABLE') {
    return { code: error.code, message: 'the database is unavailable; try again in a few seconds' };
  }
  if (error.code === 'DATABASE_FULL') {
    return { code: error.code, message: 'the database is out of disk space; try again once space is freed' };
  }
  return undefined;
}

/** Answers unknown routes in the same shape as every other error. */
export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  void reply.status(404).send({
    code: 'NOT_FOUND',
    message: `no route for ${request.method} ${request.url}`,
  } satisfies ErrorBody);
}

/** Fastify's message for a client error, naming the input where fastify's own message does not. */
function clientMessage(request: FastifyRequest, error: Partial<FastifyError>): string {
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return `Content-Type ${JSON.stringify(request.headers['content-type'] ?? '')} is not a media type svc reads`;
  }
  return error.message ?? 'bad request';
}
