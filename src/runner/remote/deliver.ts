import type { Logger } from 'pino';
import { isRetriable } from '../client/errors.js';
import { Backoff, sleep, type BackoffOptions } from './backoff.js';

/** How a delivery retries. */
export interface DeliveryOptions {
  backoff: BackoffOptions;
  /** Gives up (rejecting with the last error) once this aborts: the runner is quitting. */
  abandon: AbortSignal;
  logger: Logger;
}

/** The delivery was given up because the runner is quitting. */
export class AbandonedError extends Error {
  constructor(what: string, options?: { cause?: unknown }) {
    super(`${what}: given up, the runner is quitting`, options);
    this.name = 'AbandonedError';
  }
}

/**
 * Sends until the server acknowledges: a request that got no answer, or a 5xx, is sent again after
 * a growing pause (1 s … 30 s), for as long as it takes — a runner that loses the server keeps its
 * results and delivers them once the server is back. An answer that refuses the request (4xx) is
 * final and rejects at once, as does `abandon`.
 */
export async function deliver<T>(what: string, send: () => Promise<T>, options: DeliveryOptions): Promise<T> {
  const backoff = new Backoff(options.backoff);
  for (let attempt = 1; ; attempt++) {
    if (options.abandon.aborted) throw new AbandonedError(what);
    try {
      return await send();
    } catch (error) {
      if (!isRetriable(error)) throw error;
      if (options.abandon.aborted) throw new AbandonedError(what, { cause: error });
      const delay = backoff.next();
      const log =
        attempt === 1 ? options.logger.warn.bind(options.logger) : options.logger.debug.bind(options.logger);
      log({ err: error, attempt, retryInMs: delay }, `${what}: the server did not acknowledge; trying again`);
      await sleep(delay, options.abandon);
    }
  }
}
