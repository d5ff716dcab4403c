import type { Logger } from 'pino';

/**
 * Runs tasks one after the other, in the order they were pushed, without making the pusher wait:
 * the reporter of a running stage must never hold up its steps, even while the server is gone. A
 * task that fails is logged and the next one runs.
 */
export class Outbox {
  #tail: Promise<void> = Promise.resolve();
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Queues `task` after every task pushed before it. */
  push(what: string, task: () => Promise<void>): void {
    this.#tail = this.#tail.then(task).catch((error: unknown) => {
      this.#logger.error({ err: error }, `${what} failed`);
    });
  }

  /** Resolves when every task pushed so far is done. */
  drain(): Promise<void> {
    return this.#tail;
  }
}
