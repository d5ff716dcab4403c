/** Bounds of a retry backoff, in milliseconds. */
export interface BackoffOptions {
  min: number;
  max: number;
}

/** What svc's runner waits between tries: 1 s, doubling up to 30 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { min: 1_000, max: 30_000 };

/** Delays between tries that double from `min` up to `max`, and start over after a success. */
export class Backoff {
  readonly #options: BackoffOptions;
  #next: number;

  constructor(options: BackoffOptions = DEFAULT_BACKOFF) {
    this.#options = options;
    this.#next = options.min;
  }

  /** The delay before the next try; each call doubles the following one, up to the maximum. */
  next(): number {
    const delay = this.#next;
    this.#next = Math.min(this.#options.max, this.#next * 2);
    return delay;
  }

  /** A try succeeded: the next failure waits the minimum again. */
  reset(): void {
    this.#next = this.#options.min;
  }
}

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
