/**
 * Runs tasks one after another per key, different keys side by side. An in-memory speed-up only:
 * what must hold across server replicas is guaranteed by optimistic locking in the database.
 */
export class KeyedLock<K> {
  readonly #tails = new Map<K, Promise<void>>();

  /** Runs `task` once every task run earlier with the same key has ended; resolves with its result. */
  run<T>(key: K, task: () => Promise<T>): Promise<T> {
    const before = this.#tails.get(key) ?? Promise.resolve();
    const result = before.then(task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }

  /** Keys with a task running or waiting. */
  get size(): number {
    return this.#tails.size;
  }
}
