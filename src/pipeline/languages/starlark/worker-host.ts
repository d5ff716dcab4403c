import { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerSetup } from './protocol.js';

/** worker.ts when this module runs from src/ (vitest, tsx), worker.js once compiled to dist/. */
const WORKER_ENTRY = new URL(
  import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js',
  import.meta.url,
);

/** dist/ mirrors src/, so the vendored files sit four levels up from either. */
const SETUP: WorkerSetup = {
  runtimeUrl: new URL('../../../../vendor/starlark/wasm_exec.js', import.meta.url).href,
  wasmUrl: new URL('../../../../vendor/starlark/starlark.wasm', import.meta.url).href,
};

/**
 * The Go interpreter ended inside the worker, on a fatal error such as running out of memory;
 * the message is the first line Go wrote about it (e.g. "runtime: out of memory: …").
 */
export class InterpreterExitedError extends Error {
  readonly exitCode: number;

  constructor(exitCode: number, output: string) {
    const reason = output.trim().split('\n')[0] || `exit code ${exitCode}`;
    super(`the Starlark interpreter stopped: ${reason}`);
    this.exitCode = exitCode;
  }
}

interface Running {
  read(path: string): Promise<string | undefined>;
  resolve(outcome: string): void;
  reject(error: unknown): void;
}

/**
 * One worker thread running the Starlark interpreter, one evaluation at a time. After any failure
 * of the worker itself (it crashed, the interpreter ended, a repository read failed mid-evaluation)
 * it is `broken`: the failure rejects the evaluation in progress and the worker is terminated.
 */
export class StarlarkWorker {
  readonly #worker: Worker;
  /** Settles once the interpreter is loaded; rejects if the worker fails first. */
  readonly ready: Promise<void>;
  #markReady: () => void = () => undefined;
  #running: Running | undefined;
  #failure: Error | undefined;

  constructor() {
    // No execArgv: the worker needs no loader (Node strips worker.ts's types itself), and inheriting
    // one, such as tsx's, only slows its start.
    this.#worker = new Worker(WORKER_ENTRY, { workerData: SETUP, execArgv: [] });
    this.ready = new Promise<void>((resolve, reject) => {
      this.#markReady = resolve;
      this.#worker.once('error', reject);
      this.#worker.once('exit', (code) => reject(new Error(`the Starlark worker exited with code ${code}`)));
    });
    this.ready.catch(() => undefined); // observed by evaluate(); a worker nobody used may fail silently
    this.#worker.on('message', (message: FromWorker) => this.#receive(message));
    this.#worker.on('error', (error) => this.#break(error));
    this.#worker.on('exit', (code) => this.#break(new Error(`the Starlark worker exited with code ${code}`)));
  }

  get broken(): boolean {
    return this.#failure !== undefined;
  }

  /** Sends one request (GoRequest as JSON) and resolves with the GoOutcome JSON text. */
  async evaluate(request: string, read: (path: string) => Promise<string | undefined>): Promise<string> {
    await this.ready;
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#running !== undefined) throw new Error('the Starlark worker is already evaluating');
    return new Promise<string>((resolve, reject) => {
      this.#running = { read, resolve, reject };
      this.#worker.ref();
      this.#post({ type: 'evaluate', request });
    });
  }

  async terminate(): Promise<void> {
    this.#break(new Error('the Starlark worker was terminated'));
    await this.#worker.terminate();
  }

  #receive(message: FromWorker): void {
    switch (message.type) {
      case 'ready':
        this.#markReady();
        if (this.#running === undefined) this.#worker.unref(); // an idle worker must not keep the process alive
        return;
      case 'read':
        this.#answerRead(message.readId, message.path);
        return;
      case 'done':
        this.#finish()?.resolve(message.outcome);
        return;
      case 'exited':
        this.#break(new InterpreterExitedError(message.code, message.output));
        return;
    }
  }

  #answerRead(readId: number, path: string): void {
    const running = this.#running;
    if (running === undefined) return;
    running.read(path).then(
      (content) => this.#post({ type: 'read-result', readId, content: content ?? null }),
      (error: unknown) => this.#break(error),
    );
  }

  #finish(): Running | undefined {
    const running = this.#running;
    this.#running = undefined;
    this.#worker.unref();
    return running;
  }

  #break(failure: unknown): void {
    if (this.#failure !== undefined) return;
    this.#failure = failure instanceof Error ? failure : new Error(String(failure));
    this.#finish()?.reject(failure);
    void this.#worker.terminate();
  }

  #post(message: ToWorker): void {
    if (this.#failure === undefined) this.#worker.postMessage(message);
  }
}
