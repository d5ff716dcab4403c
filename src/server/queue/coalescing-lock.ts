/** What the callers that joined one run share: its result, and who of them acts on it. */
export interface SharedRun<T> {
  readonly value: T;
  /** True for the first caller that asks, false for the others: one of them acts on the result. */
  claim(): boolean;
}

interface Waiting<T> {
  flag: boolean;
  readonly promise: Promise<SharedRun<T>>;
}

/**
 * Runs tasks one at a time per key, like a lock, but callers that come while a run of their key
 * waits to start join that run instead of queueing one more: they all get its result. For tasks
 * that bring something up to date with what they read when they start (settling a build after its
 * stages changed), where one run after the last change does what many would. Tasks of one key
 * must be interchangeable; the `flag`s of the callers of a run are OR-ed into what the task gets.
 */
export class CoalescingLock {
  readonly #tails = new Map<string, Promise<unknown>>();
  readonly #waiting = new Map<string, Waiting<unknown>>();

  run<T>(key: string, flag: boolean, task: (flag: boolean) => Promise<T>): Promise<SharedRun<T>> {
    const joined = this.#waiting.get(key) as Waiting<T> | undefined;
    if (joined !== undefined) {
      joined.flag ||= flag;
      return joined.promise;
    }
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const waiting: Waiting<T> = {
      flag,
      promise: previous.then(async () => {
        // Started: what changes from now on may be missed by this run, so later callers queue anew.
        this.#waiting.delete(key);
        const value = await task(waiting.flag);
        let claimed = false;
        return { value, claim: () => !claimed && (claimed = true) };
      }),
    };
    this.#waiting.set(key, waiting);
    // Tails never reject, so the next run starts whether this one succeeded or failed.
    const tail = waiting.promise.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    void tail.then(() => {
      // Forget the key once nothing else queued behind this run, so the maps stay small.
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return waiting.promise;
  }
}
