/**
 * Sleepers keyed by what they wait for (a build, or the whole queue). A sleep ends at the first of:
 * a wake-up of its key, its time limit, or its signal; it never rejects, so callers simply look again.
 */
export class Wakeups<K> {
  readonly #sleepers = new Map<K, Set<() => void>>();

  /** Resolves when `key` is woken, after `ms`, or when `signal` aborts, whichever comes first. */
  sleep(key: K, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const sleepers = this.#sleepers.get(key) ?? new Set<() => void>();
      this.#sleepers.set(key, sleepers);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        sleepers.delete(done);
        if (sleepers.size === 0 && this.#sleepers.get(key) === sleepers) this.#sleepers.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      sleepers.add(done);
      if (signal.aborted) done();
      else signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Ends the sleep of everyone waiting for `key`. */
  wake(key: K): void {
    for (const done of [...(this.#sleepers.get(key) ?? [])]) done();
  }

  /** How many are asleep, over all keys. */
  get sleeping(): number {
    let total = 0;
    for (const sleepers of this.#sleepers.values()) total += sleepers.size;
    return total;
  }
}
