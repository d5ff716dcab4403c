/** What a stage got to at a runner: offered (the request's answer arrived), accepted, done. */
export type Milestone = 'offered' | 'accepted' | 'done';

/**
 * Where each stage got to, in this process's performance.now() milliseconds, and promises that
 * wait for a stage to get somewhere. Fed by the runners (RunnerFleet) or by their process
 * (RunnerProcess).
 */
export class FleetProgress {
  readonly #reached = new Map<number, Partial<Record<Milestone, number>>>();
  readonly #waiting = new Map<number, { what: Milestone; resolve: (at: number) => void }[]>();
  #lastAccepted = 0;
  #lastDone = 0;

  /** The stage reached `what` at `at`. */
  mark(stageId: number, what: Milestone, at: number): void {
    const reached = this.#reached.get(stageId) ?? {};
    reached[what] = at;
    this.#reached.set(stageId, reached);
    if (what === 'accepted') this.#lastAccepted = Math.max(this.#lastAccepted, at);
    if (what === 'done') this.#lastDone = Math.max(this.#lastDone, at);
    const list = this.#waiting.get(stageId);
    if (list === undefined) return;
    const left = list.filter((waiter) => waiter.what !== what);
    for (const waiter of list) if (waiter.what === what) waiter.resolve(at);
    if (left.length === 0) this.#waiting.delete(stageId);
    else this.#waiting.set(stageId, left);
  }

  /** When the stage reached `what` (resolves at once when it already has). */
  when(stageId: number, what: Milestone): Promise<number> {
    const at = this.#reached.get(stageId)?.[what];
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => {
      const list = this.#waiting.get(stageId) ?? [];
      list.push({ what, resolve });
      this.#waiting.set(stageId, list);
    });
  }

  /** The latest accept and the latest success so far. */
  last(): { accepted: number; done: number } {
    return { accepted: this.#lastAccepted, done: this.#lastDone };
  }
}
