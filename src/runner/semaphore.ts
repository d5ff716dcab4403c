/** Frees a slot taken with `Semaphore.acquire`; calling it twice frees it once. */
export type Release = () => void;

/** Limits how many steps run at once (SVC_RUNNER_MAX_PROCS); a limit of 0 means no limit. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  /** Waits for a free slot, in arrival order; rejects with the signal's reason when it aborts first. */
  async acquire(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (this.limit <= 0 || this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason as Error);
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    // The slot was handed over by `release` without decrementing `active`.
    return this.releaser();
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
