import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The header svc's runners send the shared secret in, and Drone's name for it (accepted as an alias). */
export const TOKEN_HEADERS = ['x-svc-token', 'x-drone-token'] as const;

/**
 * An onRequest hook that lets through only requests carrying the RPC secret. The comparison takes
 * the same time whatever the token (both sides are hashed to equal length first), so timing says
 * nothing about the secret. A refusal is a bare 401: no body, nothing about what was expected.
 * Past `limit`'s failed attempts from one address in a minute, that address gets a bare 429 with
 * Retry-After and no comparison at all until the minute is over: a correct guess could otherwise be
 * told from the refusals, at any speed.
 */
export function requireToken(secret: string, limit: FailedAuthLimit = new FailedAuthLimit()) {
  const expected = digest(secret);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const wait = limit.blockedFor(request.ip);
    if (wait > 0)
      return reply
        .code(429)
        .header('retry-after', String(Math.ceil(wait / 1000)))
        .send();
    const sent = TOKEN_HEADERS.map((name) => request.headers[name]).find((v) => typeof v === 'string');
    if (secret !== '' && sent !== undefined && timingSafeEqual(digest(sent), expected)) return undefined;
    limit.failed(request.ip);
    return reply.code(401).send();
  };
}

/** Failed runner authentications per client address, in fixed one-minute windows. */
export class FailedAuthLimit {
  readonly #max: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(options: { perMinute?: number; now?: () => number } = {}) {
    this.#max = options.perMinute ?? FAILED_AUTH_PER_MINUTE;
    this.#now = options.now ?? Date.now;
  }

  /** Milliseconds until `address` may try again; 0 when it may now. */
  blockedFor(address: string): number {
    const window = this.#current(address);
    return window !== undefined && window.count >= this.#max ? window.start + WINDOW_MS - this.#now() : 0;
  }

  failed(address: string): void {
    const window = this.#current(address);
    if (window !== undefined) window.count += 1;
    else {
      // Bounded: windows that are over go first, then the oldest, so that many addresses cannot grow it.
      if (this.#windows.size >= MAX_ADDRESSES) this.#prune();
      this.#windows.set(address, { start: this.#now(), count: 1 });
    }
  }

  #current(address: string): { start: number; count: number } | undefined {
    const window = this.#windows.get(address);
    if (window === undefined || this.#now() - window.start < WINDOW_MS) return window;
    this.#windows.delete(address);
    return undefined;
  }

  #prune(): void {
    const now = this.#now();
    for (const [address, window] of this.#windows)
      if (now - window.start >= WINDOW_MS) this.#windows.delete(address);
    for (const address of this.#windows.keys()) {
      if (this.#windows.size < MAX_ADDRESSES) break;
      this.#windows.delete(address);
    }
  }
}

/** Runners with the right secret never fail; a runner misconfigured retries far less often than this. */
const FAILED_AUTH_PER_MINUTE = 30;
const WINDOW_MS = 60_000;
const MAX_ADDRESSES = 10_000;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
