import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  NotFoundError,
  StaleVersionError,
  SvcError,
  UnauthorizedError,
} from '../core/errors.js';
import { handleError, handleNotFound } from './http-errors.js';

function appThrowing(error: unknown) {
  const app = Fastify({ logger: false });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.get('/boom', () => {
    throw error;
  });
  app.post('/echo', (request) => request.body);
  return app;
}

describe('HTTP error translation', () => {
  it.each([
    [new NotFoundError('build 7'), 404, 'NOT_FOUND', 'build 7 not found'],
    [new ConflictError('stage taken'), 409, 'CONFLICT', 'stage taken'],
    [
      new StaleVersionError('stage 3', 2),
      409,
      'STALE_VERSION',
      'stage 3 was changed by someone else (expected version 2)',
    ],
    [new UnauthorizedError(), 401, 'UNAUTHORIZED', 'authentication required'],
    [
      new SvcError(
        'DATABASE_UNAVAILABLE',
        'the PostgreSQL database db:5432/svc is unavailable: ECONNREFUSED',
      ),
      503,
      'DATABASE_UNAVAILABLE',
      'the database is unavailable; try again in a few seconds',
    ],
    [
      new SvcError('DATABASE_FULL', 'the SQLite database /srv/svc.sqlite is out of disk space'),
      507,
      'DATABASE_FULL',
      'the database is out of disk space; try again once space is freed',
    ],
  ])('%s → %i', async (error, status, code, message) => {
    const response = await appThrowing(error).inject({ method: 'GET', url: '/boom' });
    expect(response.statusCode).toBe(status);
    expect(response.json()).toEqual({ code, message });
  });

  it('hides the details of unexpected errors', async () => {
    const response = await appThrowing(new Error('secret internals at /srv/x.ts:12')).inject({
      url: '/boom',
    });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toEqual({ code: 'INTERNAL', message: 'internal server error' });
  });

  it('keeps client errors of the framework as 4xx with the same body shape', async () => {
    const response = await appThrowing(null).inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(response.statusCode).toBe(400);
    expect(Object.keys(response.json<object>()).sort()).toEqual(['code', 'message']);
  });

  it('names the Content-Type it cannot read', async () => {
    const response = await appThrowing(null).inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': ';;;' },
      payload: '{}',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toEqual({
      code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
      message: 'Content-Type ";;;" is not a media type svc reads',
    });
  });

  it('answers unknown routes with 404 in the same shape', async () => {
    const response = await appThrowing(null).inject({ url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 'NOT_FOUND', message: 'no route for GET /nope' });
  });
});
