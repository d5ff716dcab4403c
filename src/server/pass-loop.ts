/**
 * Runs `pass` once the server is ready (`start`) and again `intervalMs` after each pass ends, on an
 * unref'd timer; `stop` ends the loop and resolves once a pass under way has ended. The jobs that
 * look over the database now and then (pruning deliveries, declining expired approvals) share it.
 */
export class PassLoop {
  readonly #pass: () => Promise<unknown>;
  readonly #intervalMs: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;

  constructor(pass: () => Promise<unknown>, intervalMs: number) {
    this.#pass = pass;
    this.#intervalMs = intervalMs;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(delay: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#pass().finally(() => {
        this.#running = undefined;
        this.#schedule(this.#intervalMs);
      });
    }, delay);
    this.#timer.unref();
  }
}
