import type { Engine, ExecSpec, ExecStep, OutputSink, StepExit } from '../../core/engine.js';

/** A scripted step: what it prints, how long it takes and how it ends. */
export interface NullBehaviour {
  /** Output lines, printed one after the other (`lineDelay` ms apart) as soon as the step starts. */
  lines?: string[];
  lineDelay?: number;
  /** Milliseconds the step runs after its lines before it exits. */
  delay?: number;
  /** Run until aborted (a server that never ends, a step that hangs). */
  hang?: boolean;
  exitCode?: number;
  oomKilled?: boolean;
  /** Make the engine itself fail the step with this message (an image that cannot be pulled). */
  engineError?: string;
}

/** A step written as code, for what a behaviour cannot express. Must honour `signal`. */
export type NullScript = (step: ExecStep, output: OutputSink, signal: AbortSignal) => Promise<StepExit>;

/** What the null engine saw, in order. */
export type NullEvent =
  | { type: 'setup'; runId: string }
  | { type: 'start'; step: string; at: number }
  | { type: 'exit'; step: string; at: number; exitCode: number }
  | { type: 'abort'; step: string; at: number }
  | { type: 'destroy'; runId: string };

/** How the null engine behaves: per-step scripts and failures of setup or destroy. */
export interface NullEngineOptions {
  /** Behaviour of each step, by step name; a step not listed prints nothing and exits 0. */
  steps?: Record<string, NullBehaviour | NullScript>;
  /** Make `setup` fail with this message. */
  setupError?: string;
  /** Milliseconds `setup` takes. */
  setupDelay?: number;
  /** Make `destroy` fail with this message (after recording the call). */
  destroyError?: string;
  /** Whether a step may run again after it exited (`retry:`); true unless false. */
  runsStepsAgain?: boolean;
}

/**
 * An engine that runs nothing: each step follows a script. It keeps the runner core's tests fast
 * and deterministic, and records what happened (order, concurrency, destroy) for them to check.
 */
export class NullEngine implements Engine {
  readonly events: NullEvent[] = [];
  /** The most steps that were running at the same time (detached ones included until destroy). */
  maxConcurrent = 0;
  private running = 0;
  private readonly background = new Set<AbortController>();

  constructor(private readonly options: NullEngineOptions = {}) {}

  get runsStepsAgain(): boolean {
    return this.options.runsStepsAgain ?? true;
  }

  async setup(spec: ExecSpec, signal?: AbortSignal): Promise<void> {
    this.events.push({ type: 'setup', runId: spec.runId });
    if (this.options.setupDelay) await sleep(this.options.setupDelay, signal);
    if (this.options.setupError !== undefined) throw new Error(this.options.setupError);
  }

  async run(_spec: ExecSpec, step: ExecStep, output: OutputSink, signal?: AbortSignal): Promise<StepExit> {
    signal?.throwIfAborted();
    const script = this.options.steps?.[step.name] ?? {};
    this.events.push({ type: 'start', step: step.name, at: Date.now() });
    this.running++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.running);
    if (step.detach) {
      // A detached step outlives `run`: it goes on in the background until destroy.
      const control = new AbortController();
      this.background.add(control);
      this.play(step, script, output, control.signal).catch(() => undefined);
      return { exitCode: 0, oomKilled: false };
    }
    try {
      return await this.play(step, script, output, signal ?? new AbortController().signal);
    } finally {
      this.running--;
    }
  }

  destroy(spec: ExecSpec): Promise<void> {
    for (const control of this.background) control.abort();
    this.running -= this.background.size;
    this.background.clear();
    this.events.push({ type: 'destroy', runId: spec.runId });
    if (this.options.destroyError !== undefined) return Promise.reject(new Error(this.options.destroyError));
    return Promise.resolve();
  }

  /** The names of the steps in the order they started. */
  started(): string[] {
    return this.events.flatMap((e) => (e.type === 'start' ? [e.step] : []));
  }

  private async play(
    step: ExecStep,
    script: NullBehaviour | NullScript,
    output: OutputSink,
    signal: AbortSignal,
  ): Promise<StepExit> {
    try {
      if (typeof script === 'function') {
        const exit = await script(step, output, signal);
        this.events.push({ type: 'exit', step: step.name, at: Date.now(), exitCode: exit.exitCode });
        return exit;
      }
      for (const line of script.lines ?? []) {
        if (script.lineDelay) await sleep(script.lineDelay, signal);
        output(line);
      }
      if (script.delay) await sleep(script.delay, signal);
      if (script.hang) await sleep(Number.MAX_SAFE_INTEGER, signal);
      if (script.engineError !== undefined) throw new Error(script.engineError);
      const exit = { exitCode: script.exitCode ?? 0, oomKilled: script.oomKilled ?? false };
      this.events.push({ type: 'exit', step: step.name, at: Date.now(), exitCode: exit.exitCode });
      return exit;
    } catch (err) {
      if (signal.aborted) this.events.push({ type: 'abort', step: step.name, at: Date.now() });
      throw err;
    }
  }
}

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    // setTimeout takes at most 2^31-1 ms; hanging steps wait for the abort instead.
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortError(signal: AbortSignal | undefined): Error {
  const error = new Error('step aborted', { cause: signal?.reason });
  error.name = 'AbortError';
  return error;
}
