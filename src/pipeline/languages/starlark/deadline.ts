/** Thrown by a Deadline when its time is up. */
export class DeadlineExpired extends Error {}

/**
 * A time limit on the interpreter's own work. It is paused while the interpreter waits for the
 * repository to read a file, so that a slow repository does not fail the user's program.
 */
export class Deadline {
  /** Rejects with DeadlineExpired when the time is up; never settles once cancelled. */
  readonly expired: Promise<never>;
  #remainingMs: number;
  #runningSince = 0;
  #timer: NodeJS.Timeout | undefined;
  #pauses = 0;
  #expire: (error: DeadlineExpired) => void = () => undefined;

  constructor(limitMs: number) {
    this.#remainingMs = limitMs;
    this.expired = new Promise<never>((_resolve, reject) => {
      this.#expire = reject;
    });
    this.expired.catch(() => undefined); // the caller races it; an unobserved expiry is not an error
    this.#run();
  }

  /** Runs `work` with the clock stopped. */
  async paused<T>(work: () => Promise<T>): Promise<T> {
    if (this.#pauses++ === 0) {
      clearTimeout(this.#timer);
      this.#remainingMs -= performance.now() - this.#runningSince;
    }
    try {
      return await work();
    } finally {
      if (--this.#pauses === 0) this.#run();
    }
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#pauses = Number.POSITIVE_INFINITY; // a late paused() must not restart the clock
  }

  #run(): void {
    this.#runningSince = performance.now();
    this.#timer = setTimeout(() => this.#expire(new DeadlineExpired()), Math.max(0, this.#remainingMs));
  }
}
