/**
 * The primary rate limit of the REST API (docs: rest/using-the-rest-api/rate-limits-for-the-rest-api):
 * 5,000 requests per hour, counted for the whole double, reported in `x-ratelimit-*` headers on every
 * API answer. Once exhausted, calls are refused with 403 until the reset time.
 */
export class RateLimit {
  static readonly LIMIT = 5000;
  readonly #limit: number;
  #used = 0;
  #reset = 0;

  /** `limit` requests an hour: GitHub's 5,000, or what a GitHub Enterprise Server's administrator set. */
  constructor(limit = RateLimit.LIMIT) {
    this.#limit = limit;
  }

  /** Counts one request; false when the limit is exhausted. */
  take(now = Date.now()): boolean {
    if (now >= this.#reset) {
      this.#used = 0;
      this.#reset = now + 3600_000;
    }
    if (this.#used >= this.#limit) return false;
    this.#used++;
    return true;
  }

  /** Uses up the rest of the window, which then ends at `resetAt`. */
  exhaust(resetAt: Date): void {
    this.#used = this.#limit;
    this.#reset = resetAt.getTime();
  }

  headers(): Record<string, string> {
    return {
      'x-ratelimit-limit': String(this.#limit),
      'x-ratelimit-remaining': String(this.#limit - this.#used),
      'x-ratelimit-reset': String(Math.ceil(this.#reset / 1000)),
      'x-ratelimit-used': String(this.#used),
      'x-ratelimit-resource': 'core',
    };
  }
}
