import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GaugeSource } from '../../core/gauges.js';
import type { RunnerToken, RunnerTokenStore } from '../../core/runner-token.js';
import { hashRunnerToken, RUNNER_TOKEN_PREFIX } from './runner-tokens.js';

/** The header svc's runners send the shared secret in, and Drone's name for it (accepted as an alias). */
export const TOKEN_HEADERS = ['x-svc-token', 'x-drone-token'] as const;

/** How runners prove themselves: the shared secret (unless switched off), or their own token. */
export interface RunnerCredentials {
  /** SVC_RPC_SECRET. */
  readonly secret: string;
  /** SVC_RPC_SECRET_DISABLED: only runner tokens (and `internalSecret`) are accepted. */
  readonly sharedSecretDisabled?: boolean;
  /**
   * The in-process runner's secret (SVC_RUNNER_LOCAL): made at start, known to this process only,
   * so that the local runner works whether the shared secret is accepted or not.
   */
  readonly internalSecret?: string;
  readonly tokens?: Pick<RunnerTokenStore, 'findHash' | 'touch'>;
  readonly limit?: FailedAuthLimit;
  readonly now?: () => number;
}

/** A token's use is written at most this often: runners poll many times a minute. */
const TOUCH_EVERY_MS = 60_000;

/**
 * An onRequest hook that lets through only requests carrying the RPC secret or a runner's own
 * token (svc runner token create), which then names the runner (`request.runnerToken`): every
 * stage it takes is held under that name, and nothing it says can change it. A revoked token is
 * refused at its next request. The secret's comparison takes the same time whatever was sent (both
 * sides are hashed to equal length first); tokens are found by their hash. A refusal is a bare
 * 401: no body, nothing about what was expected. Past `limit`'s failed attempts from one address in
 * a minute, that address gets a bare 429 with Retry-After and no comparison at all until the
 * minute is over: a correct guess could otherwise be told from the refusals, at any speed.
 */
export function requireToken(credentials: RunnerCredentials) {
  const { secret, tokens } = credentials;
  const expected = digest(secret);
  const internal = credentials.internalSecret === undefined ? undefined : digest(credentials.internalSecret);
  const limit = credentials.limit ?? new FailedAuthLimit();
  const now = credentials.now ?? Date.now;
  const touched = new Map<number, number>();
  const tokenOf = async (sent: string): Promise<RunnerToken | undefined> => {
    if (tokens === undefined || !sent.startsWith(RUNNER_TOKEN_PREFIX)) return undefined;
    const token = await tokens.findHash(hashRunnerToken(sent));
    if (token === undefined || token.revoked !== 0) return undefined;
    const at = now();
    if (at - (touched.get(token.id) ?? 0) >= TOUCH_EVERY_MS) {
      if (touched.size > 10_000) touched.clear();
      touched.set(token.id, at);
      await tokens.touch(token.id, at);
    }
    return token;
  };
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const wait = limit.blockedFor(request.ip);
    if (wait > 0)
      return reply
        .code(429)
        .header('retry-after', String(Math.ceil(wait / 1000)))
        .send();
    const sent = TOKEN_HEADERS.map((name) => request.headers[name]).find((v) => typeof v === 'string');
    if (sent !== undefined) {
      const shared =
        credentials.sharedSecretDisabled !== true && secret !== '' && timingSafeEqual(digest(sent), expected);
      if (shared || (internal !== undefined && timingSafeEqual(digest(sent), internal))) return undefined;
      const token = await tokenOf(sent);
      if (token !== undefined) {
        request.runnerToken = token;
        return undefined;
      }
    }
    limit.failed(request.ip);
    return reply.code(401).send();
  };
}

/** Failed runner authentications per client address, in fixed one-minute windows. */
export class FailedAuthLimit implements GaugeSource {
  readonly #max: number;
  readonly #now: () => number;
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(options: { perMinute?: number; now?: () => number } = {}) {
    this.#max = options.perMinute ?? FAILED_AUTH_PER_MINUTE;
    this.#now = options.now ?? Date.now;
  }

  sizes(): Record<string, number> {
    return { addresses: this.#windows.size };
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
