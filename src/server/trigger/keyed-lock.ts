/**
 * Runs tasks one at a time per key (tasks of other keys run alongside). The trigger uses it per
 * repository, so that the build number it substitutes before creating a build is the one the store
 * then hands out — at least within one server process.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Keys with a task running or queued. */
  get size(): number {
    return this.#tails.size;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    // Tails never reject, so the next task starts whether this one succeeded or failed.
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.then(task);
    const tail = current.catch(() => undefined);
    this.#tails.set(key, tail);
    try {
      return await current;
    } finally {
      // Forget the key once nothing else queued behind this task, so the map stays small.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
