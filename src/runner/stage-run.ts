import { formatDuration } from '../config/values/duration.js';
import { messageOf, runAttempt, type AttemptContext } from './step-attempt.js';
import {
  attemptStepId,
  type Engine,
  type ExecSpec,
  type ExecStep,
  type OutputSink,
  type StepExit,
} from '../core/engine.js';
import type { CacheTransport } from './cache/transport.js';
import type { ArtifactTransport } from './artifacts/transport.js';
import { stepOutput } from './step-output.js';
import type { StageFiles } from './step-around.js';
import { isFailed } from '../core/status.js';
import { graphProblem } from './graph.js';
import { createMasker, type Masker } from './masker.js';
import {
  EXIT_SKIP_REST,
  exitOutcome,
  killedOutcome,
  skipReason,
  stageOutcome,
  type StageSoFar,
} from './outcome.js';
import type { StageReporter, StageResult, StepResult } from './reporter.js';
import { exitRetried, retryReason } from './retry.js';
import type { Semaphore } from './semaphore.js';

/** Everything one execution of one stage shares. */
export interface StageRunOptions {
  spec: ExecSpec;
  engine: Engine;
  procs: Semaphore;
  reporter: StageReporter;
  now: () => number;
  timeout: number;
  /** Where the stage's caches are kept; undefined when this runner keeps none. */
  caches?: CacheTransport | undefined;
  /** Where the stage's artifacts go and come from; undefined when this runner keeps none. */
  artifacts?: ArtifactTransport | undefined;
  /** The stage's `artifacts: from:`, once (artifactsFetch). */
  fetchArtifacts?: StageFiles['fetchArtifacts'];
}

/**
 * One execution of one stage. The rules:
 * 1. A step is considered once all its dependencies are done (finished or skipped; a detached
 *    dependency counts as done once it has started) and a slot of `maxProcs` is free.
 * 2. It is then skipped when the stage was cancelled or timed out, when a step exited 78, or when
 *    its run policy says so given the stage so far (`skipReason`). Otherwise it runs.
 * 3. A failure counts against the stage unless the step has `failure: ignore`.
 * 4. Cancel and the stage timeout kill the running steps (status `killed`, exit 137) and skip the
 *    rest; a step's own timeout kills only that step, which then fails (`failure`, exit 137). A
 *    failed step with `failure: fast` does the same as a cancel, but the stage then ends `failure`.
 * 5. A failed attempt that the step's `retry:` names runs again, up to its `max` more times, in
 *    the same log; the step's result says how many attempts it took.
 * 6. Whatever happens, the engine destroys the run's resources before the stage is reported done.
 */
export class StageRun {
  private readonly results = new Map<string, StepResult>();
  private readonly stop = new AbortController();
  private readonly state: StageSoFar = {
    stopMessage: undefined,
    stoppedByFailure: false,
    exitedEarlyBy: undefined,
    failed: false,
  };
  private readonly masker: Masker;
  /** Names of the steps that failed the stage so far, for the status variables of later steps. */
  private readonly failedSteps: string[] = [];
  /** Detached steps that started: they run (and log) until the engine destroys them. */
  private readonly detached: { step: ExecStep; closeOutput: () => void }[] = [];
  private reportFailed = false;
  private reportError: unknown;

  constructor(private readonly o: StageRunOptions) {
    this.masker = createMasker(
      o.spec.steps.flatMap((s) => s.secrets.filter((x) => x.mask).map((x) => x.data)),
    );
  }

  /** Runs the stage to its end; never rejects because of the stage's own outcome. */
  async execute(signal: AbortSignal | undefined): Promise<StageResult> {
    const started = this.o.now();
    const onCancel = (): void => this.end('the stage was cancelled');
    if (signal?.aborted) onCancel();
    signal?.addEventListener('abort', onCancel, { once: true });
    const timeout = `the stage timed out after ${formatDuration(this.o.timeout)}`;
    const timer = this.o.timeout > 0 ? setTimeout(() => this.end(timeout), this.o.timeout) : undefined;
    let stageError = graphProblem(this.o.spec.steps) ?? '';
    let cleanupError = '';
    try {
      if (stageError === '' && !this.stopped()) {
        try {
          await this.o.engine.setup(this.o.spec, this.stop.signal);
        } catch (err) {
          if (!this.stopped()) stageError = `setting up the stage failed: ${this.masker(messageOf(err))}`;
        }
      }
      if (stageError === '' && !this.stopped()) await this.walk();
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
      try {
        await this.o.engine.destroy(this.o.spec);
      } catch (err) {
        cleanupError = this.masker(messageOf(err));
      }
    }
    await this.finishLeftSteps(stageError);
    const steps = this.o.spec.steps.map((s) => this.resultOf(s.name));
    const result: StageResult = {
      ...stageOutcome(stageError, this.state, steps),
      started,
      stopped: this.o.now(),
      steps,
      exitedEarlyBy: this.state.exitedEarlyBy,
      cleanupError,
      reportError: undefined,
    };
    await this.report(() => this.o.reporter.stageFinished(result));
    result.reportError = this.reportError;
    return result;
  }

  private end(message: string): void {
    if (this.stopped()) return;
    this.state.stopMessage = message;
    this.stop.abort(new Error(message));
  }

  private stopped(): boolean {
    return this.state.stopMessage !== undefined;
  }

  /** Starts every step as a task that waits for its dependencies; resolves when all are done. */
  private async walk(): Promise<void> {
    const gates = new Map<string, PromiseWithResolvers<void>>();
    for (const step of this.o.spec.steps) gates.set(step.name, Promise.withResolvers<void>());
    await Promise.all(
      this.o.spec.steps.map(async (step) => {
        try {
          await Promise.all(step.dependsOn.map((dep) => gates.get(dep)?.promise ?? Promise.resolve()));
          await this.consider(step);
        } finally {
          gates.get(step.name)?.resolve();
        }
      }),
    );
  }

  private async consider(step: ExecStep): Promise<void> {
    let release: () => void;
    try {
      release = await this.o.procs.acquire(this.stop.signal);
    } catch {
      return this.skip(step, this.state.stopMessage ?? '');
    }
    try {
      const reason = skipReason(step.runPolicy, this.state);
      if (reason !== undefined) return await this.skip(step, reason);
      await this.runStep(step);
    } finally {
      release();
    }
  }

  private async runStep(step: ExecStep): Promise<void> {
    const started = this.o.now();
    const result = this.setResult(step, { status: 'running', started });
    await this.report(() => this.o.reporter.stepStarted(step, started));

    let open = true;
    // One log for every attempt: each next one is announced in it, and numbered on from the last.
    const output = this.output(step, started, () => open);
    const attempts = 1 + (step.retry?.max ?? 0);
    let attempt = 1;
    const retried = (exit: StepExit) => attempt < attempts && exitRetried(step.retry, exit);
    const runAs = (each: ExecStep) =>
      runAttempt(this.attemptContext(), { step: each, output, retried, attempt });
    let run = await runAs(step);
    while (attempt < attempts && !this.stopped()) {
      const why = retryReason(step.retry, run);
      if (why === undefined) break;
      if (this.o.engine.runsStepsAgain !== true) {
        output(`retry: attempt ${attempt} failed (${why}); this runner kind cannot run a step again`);
        break;
      }
      output(`retry: attempt ${attempt} of ${attempts} failed (${why}); the step runs again`);
      attempt++;
      // Each attempt is a step of its own to the engine: a new container, never the exited one.
      run = await runAs({ ...step, id: attemptStepId(step.id, attempt) });
    }

    result.attempts = attempt;
    if (step.detach && run.exit?.exitCode === 0) {
      // Still running: it logs until the stage ends and is reported finished then.
      this.detached.push({ step, closeOutput: () => (open = false) });
      return;
    }
    open = false;
    Object.assign(result, run.outcome, { stopped: this.o.now() });
    if (isFailed(result.status) && !result.errIgnore) {
      this.state.failed = true;
      this.failedSteps.push(step.name);
      if (step.errPolicy === 'fast' && !this.stopped()) {
        this.state.stoppedByFailure = true;
        this.end(`step "${step.name}" failed and has failure: fast`);
      }
    }
    if (result.exitCode === EXIT_SKIP_REST && result.status === 'success')
      this.state.exitedEarlyBy ??= step.name;
    await this.report(() => this.o.reporter.stepFinished(step, { ...result }));
  }

  /** What each attempt of a step reads of this run (step-attempt.ts). */
  private attemptContext(): AttemptContext {
    const stopMessage = () => this.state.stopMessage;
    return {
      ...this.o,
      stageSignal: this.stop.signal,
      failedSteps: this.failedSteps,
      stopMessage,
      masker: this.masker,
    };
  }

  private output(step: ExecStep, started: number, isOpen: () => boolean): OutputSink {
    return stepOutput(step, started, isOpen, {
      masker: this.masker,
      reporter: this.o.reporter,
      now: this.o.now,
      noteError: (err) => this.noteReportError(err),
    });
  }

  private async skip(step: ExecStep, reason: string): Promise<void> {
    const result = this.setResult(step, { status: 'skipped', error: reason });
    await this.report(() => this.o.reporter.stepFinished(step, { ...result }));
  }

  /** Reports detached steps (ended with the stage) and steps the stage never reached. */
  private async finishLeftSteps(stageError: string): Promise<void> {
    const stopped = this.o.now();
    for (const { step, closeOutput } of this.detached) {
      closeOutput();
      const { stopMessage } = this.state;
      const outcome =
        stopMessage === undefined
          ? exitOutcome({ exitCode: 0, oomKilled: false })
          : killedOutcome(stopMessage);
      const result = Object.assign(this.resultOf(step.name), outcome, { stopped });
      await this.report(() => this.o.reporter.stepFinished(step, { ...result }));
    }
    for (const step of this.o.spec.steps) {
      if (!this.results.has(step.name)) await this.skip(step, stageError || (this.state.stopMessage ?? ''));
    }
  }

  private setResult(step: ExecStep, fields: Partial<StepResult>): StepResult {
    const result: StepResult = {
      name: step.name,
      status: 'pending',
      exitCode: 0,
      oomKilled: false,
      error: '',
      errIgnore: step.errPolicy === 'ignore',
      started: 0,
      stopped: 0,
      attempts: 0,
      ...fields,
    };
    this.results.set(step.name, result);
    return result;
  }

  private resultOf(name: string): StepResult {
    const found = this.results.get(name);
    if (found === undefined) throw new Error(`no result for step "${name}"`);
    return found;
  }

  private async report(call: () => void | Promise<void>): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.noteReportError(err);
    }
  }

  private noteReportError(err: unknown): void {
    if (this.reportFailed) return;
    this.reportFailed = true;
    this.reportError = err;
  }
}
