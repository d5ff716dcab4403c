/**
 * Reads by key batched: keys asked for until the event loop's next check phase (setImmediate) are
 * read with one query, and while that query runs, the keys asked for meanwhile wait for it to end
 * and are then read together. So an idle server reads at once, and a busy one reads in as few
 * queries as the database's pace allows (one at a time per batch), not one per request. Every
 * caller gets its own copy of what was read.
 */
export class ReadBatch<K, V> {
  readonly #load: (keys: K[]) => Promise<Map<K, V>>;
  #waiting = new Map<K, { resolve: (value: V | undefined) => void; reject: (error: unknown) => void }[]>();
  #loading = false;

  constructor(load: (keys: K[]) => Promise<Map<K, V>>) {
    this.#load = load;
  }

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0 && !this.#loading) setImmediate(() => void this.#flush());
      const waiters = this.#waiting.get(key) ?? [];
      waiters.push({ resolve, reject });
      this.#waiting.set(key, waiters);
    });
  }

  async #flush(): Promise<void> {
    const waiting = this.#waiting;
    this.#waiting = new Map();
    this.#loading = true;
    try {
      const found = await this.#load([...waiting.keys()]);
      for (const [key, waiters] of waiting) {
        const value = found.get(key);
        // Callers may change what they get: the first gets what was read, the others copies.
        waiters.forEach((waiter, i) => waiter.resolve(i === 0 ? value : structuredClone(value)));
      }
    } catch (error) {
      for (const waiters of waiting.values()) for (const waiter of waiters) waiter.reject(error);
    } finally {
      this.#loading = false;
      // Keys asked for during the read: their turn now.
      if (this.#waiting.size > 0) setImmediate(() => void this.#flush());
    }
  }
}

/** At most this many keys go in one `in (…)` list: well within every dialect's limit on parameters. */
const GROUP = 500;

/** The keys in groups of at most GROUP, for loads that may be asked for thousands of keys at once. */
export function groups<K>(keys: readonly K[]): K[][] {
  const result: K[][] = [];
  for (let i = 0; i < keys.length; i += GROUP) result.push(keys.slice(i, i + GROUP));
  return result;
}
