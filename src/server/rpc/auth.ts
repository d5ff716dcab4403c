import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The header svc's runners send the shared secret in, and Drone's name for it (accepted as an alias). */
export const TOKEN_HEADERS = ['x-svc-token', 'x-drone-token'] as const;

/**
 * An onRequest hook that lets through only requests carrying the RPC secret. The comparison takes
 * the same time whatever the token (both sides are hashed to equal length first), so timing says
 * nothing about the secret. A refusal is a bare 401: no body, nothing about what was expected.
 */
export function requireToken(secret: string) {
  const expected = digest(secret);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const sent = TOKEN_HEADERS.map((name) => request.headers[name]).find((v) => typeof v === 'string');
    if (secret !== '' && sent !== undefined && timingSafeEqual(digest(sent), expected)) return undefined;
    return reply.code(401).send();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
