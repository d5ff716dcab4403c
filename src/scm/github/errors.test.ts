import { describe, expect, it } from 'vitest';
import { ScmRateLimitError } from '../errors.js';
import type { TransportResponse } from '../transport.js';
import { githubError } from './errors.js';

function response(status: number, headers: Record<string, string>, text = ''): TransportResponse {
  return { status, header: (name) => headers[name.toLowerCase()], text };
}

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('githubError', () => {
  it('maps 401, 403, 404 and 422 to svc codes with GitHub’s message', () => {
    expect(githubError('GET /user', response(401, {}, '{"message":"Bad credentials"}'))).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'GitHub GET /user: Bad credentials',
    });
    const forbidden = githubError(
      'GET /repos/a/b/hooks',
      response(
        403,
        { 'x-ratelimit-remaining': '4999' },
        '{"message":"Must have admin rights to Repository."}',
      ),
    );
    expect(forbidden).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('admin rights') as unknown,
    });
    expect(forbidden).not.toBeInstanceOf(ScmRateLimitError);
    expect(githubError('GET /repos/a/b', response(404, {}, '{"message":"Not Found"}')).code).toBe(
      'NOT_FOUND',
    );
    const invalid = githubError(
      'POST /repos/a/b/hooks',
      response(
        422,
        {},
        '{"message":"Validation Failed","errors":[{"resource":"Hook","code":"custom","message":"Hook already exists on this repository"}]}',
      ),
    );
    expect(invalid).toMatchObject({
      code: 'INVALID_INPUT',
      message: 'GitHub POST /repos/a/b/hooks: Validation Failed; Hook already exists on this repository',
    });
  });

  it('reads the reset time of an exhausted primary limit', () => {
    const error = githubError(
      'GET /user',
      response(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1767229200' }),
      NOW,
    );
    expect(error).toBeInstanceOf(ScmRateLimitError);
    expect((error as ScmRateLimitError).resetAt.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(error.message).toBe(
      'GitHub GET /user: rate limit exhausted; it resets at 2026-01-01T01:00:00.000Z',
    );
  });

  it('waits for retry-after on a secondary limit, and a minute on a bare 429', () => {
    const secondary = githubError(
      'GET /user',
      response(403, { 'retry-after': '30', 'x-ratelimit-remaining': '12' }),
      NOW,
    );
    expect((secondary as ScmRateLimitError).resetAt.toISOString()).toBe('2026-01-01T00:00:30.000Z');
    const bare = githubError('GET /user', response(429, {}), NOW);
    expect((bare as ScmRateLimitError).resetAt.toISOString()).toBe('2026-01-01T00:01:00.000Z');
  });

  it('reports 5xx and other answers as INTERNAL', () => {
    expect(githubError('GET /user', response(503, {}, 'unavailable'))).toMatchObject({
      code: 'INTERNAL',
      message: 'GitHub GET /user: HTTP 503 unavailable',
    });
    expect(githubError('GET /user', response(409, {}, '{"message":"Git Repository is empty."}')).code).toBe(
      'INTERNAL',
    );
  });
});
