import { ConfigLanguageError, type LanguageLimits, type LanguageRequest } from '../types.js';
import { droneContext } from './context.js';
import { Deadline, DeadlineExpired } from './deadline.js';
import type { GoOutcome, GoRequest } from './protocol.js';
import { InterpreterExitedError, StarlarkWorker } from './worker-host.js';

/** Drone's limit on the size of the generated configuration (DRONE_STARLARK_SIZE_LIMIT's default). */
const MAX_OUTPUT_BYTES = 1_000_000;

/**
 * Evaluates `.drone.star` files as Drone's starlark converter does: go.starlark.net (the same
 * interpreter, compiled to WebAssembly) runs the file and calls `main(ctx)`; the dict it returns,
 * or each item of the list it returns, is a pipeline document. Beyond Drone, which refuses every
 * load(), load() reads other files of the repository (what `request.read` gives: nothing for a
 * template); ctx.input holds a template's inputs (see context.ts).
 *
 * One worker thread serves the evaluations one at a time, in the order they arrive: an evaluation
 * takes milliseconds, starting a worker (compiling a 5 MB interpreter) a few hundred, so a worker
 * per evaluation would cost more than waiting in the queue. A program that runs out of time is
 * stopped by terminating its worker, which therefore runs nothing else; the next evaluation starts
 * a fresh one.
 */
export class StarlarkEvaluator {
  readonly #limits: LanguageLimits;
  #worker: StarlarkWorker | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #closed = false;

  constructor(limits: LanguageLimits) {
    this.#limits = limits;
  }

  /**
   * The documents `main(ctx)` returns, as JSON values in order. Throws ConfigLanguageError when the
   * program cannot be evaluated (syntax, runtime error, load failure, a limit hit); a failure to
   * read a repository file is rethrown as is.
   */
  evaluate(request: LanguageRequest): Promise<unknown[]> {
    if (this.#closed) return Promise.reject(new Error('the Starlark evaluator is closed'));
    const documents = this.#queue.then(() => this.#evaluateNow(request));
    this.#queue = documents.catch(() => undefined);
    return documents;
  }

  /** Lets the evaluations already asked for finish, then stops the worker. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  async #evaluateNow(request: LanguageRequest): Promise<unknown[]> {
    const worker = this.#readyWorker();
    await worker.ready; // starting the interpreter does not count against the program's time
    const deadline = new Deadline(this.#limits.timeoutMs);
    try {
      const outcome = await Promise.race([
        worker.evaluate(this.#goRequest(request), (path) => deadline.paused(() => request.read(path))),
        deadline.expired,
      ]);
      return documentsOf(JSON.parse(outcome) as GoOutcome);
    } catch (error) {
      if (error instanceof DeadlineExpired) {
        await this.#discard(worker); // terminating its worker is how a running program is stopped
        throw new ConfigLanguageError(
          request.path,
          `exceeded the time limit of ${this.#limits.timeoutMs} ms`,
        );
      }
      if (error instanceof InterpreterExitedError) {
        throw new ConfigLanguageError(request.path, error.message);
      }
      throw error;
    } finally {
      deadline.cancel();
      if (worker.broken) await this.#discard(worker);
    }
  }

  #readyWorker(): StarlarkWorker {
    if (this.#worker === undefined || this.#worker.broken) this.#worker = new StarlarkWorker();
    return this.#worker;
  }

  async #discard(worker: StarlarkWorker): Promise<void> {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    await worker.terminate();
  }

  #goRequest(request: LanguageRequest): string {
    const goRequest: GoRequest = {
      path: request.path,
      source: request.source,
      context: droneContext(request.facts, request.input),
      maxSteps: this.#limits.steps,
      maxOutputBytes: MAX_OUTPUT_BYTES,
    };
    return JSON.stringify(goRequest);
  }
}

function documentsOf(outcome: GoOutcome): unknown[] {
  if ('documents' in outcome) return outcome.documents;
  const { file, line, column, message } = outcome.error;
  throw new ConfigLanguageError(
    file,
    message,
    line === undefined ? undefined : { line, column: column ?? 0 },
  );
}
