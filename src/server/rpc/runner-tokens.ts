import { createHash, randomBytes } from 'node:crypto';
import type { RunnerToken } from '../../core/runner-token.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The runner token the request was made with (auth.ts); null with the shared secret. */
    runnerToken: RunnerToken | null;
  }
}

/** What every runner token starts with: tells it from the shared secret, and from API tokens. */
export const RUNNER_TOKEN_PREFIX = 'svcr_';

/** A new runner token (shown once) and the hash that is stored. */
export function newRunnerToken(): { token: string; hash: string } {
  const token = `${RUNNER_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashRunnerToken(token) };
}

/** The SHA-256 (hex) a runner token is stored and found by. */
export function hashRunnerToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
