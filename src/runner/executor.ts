import type { Engine, ExecSpec } from '../core/engine.js';
import { StageRun } from './stage-run.js';
import type { StageReporter, StageResult } from './reporter.js';
import { Semaphore } from './semaphore.js';
import type { CacheTransport } from './cache/transport.js';
import type { ArtifactTransport } from './artifacts/transport.js';
import { artifactsFetch } from './artifacts/around.js';

/** What the executor needs for every stage it runs. */
export interface StageExecutorOptions {
  engine: Engine;
  /** How many steps may run at once across the stages of this executor (0 = no limit). */
  maxProcs?: number;
  /** Epoch milliseconds; tests pass a fake clock. */
  now?: () => number;
}

/** What differs from one stage to the next. */
export interface ExecuteOptions {
  /** Observes the stage as it runs; nothing is reported without one. */
  reporter?: StageReporter;
  /** Cancels the stage: running steps are killed, the rest skipped. */
  signal?: AbortSignal;
  /** Milliseconds the whole stage may take, setup included; 0 means no limit. */
  timeout?: number;
  /** Where the stage's caches are kept (steps' `cache:`); without one, steps say they have none. */
  caches?: CacheTransport;
  /** Where the stage's artifacts go and come from (`artifacts:`); without one, steps say so. */
  artifacts?: ArtifactTransport;
}

const SILENT: StageReporter = {
  stepStarted: () => undefined,
  stepLine: () => undefined,
  stepFinished: () => undefined,
  stageFinished: () => undefined,
};

/**
 * Runs ExecSpecs over an Engine: the one DAG executor every runner kind shares (the rules are in
 * docs/runner-core.md and on StageRun). `execute` never rejects for a failing stage — the result
 * says how it went — and always lets the engine destroy what the run created.
 */
export class StageExecutor {
  private readonly engine: Engine;
  private readonly procs: Semaphore;
  private readonly now: () => number;

  constructor(options: StageExecutorOptions) {
    this.engine = options.engine;
    this.procs = new Semaphore(options.maxProcs ?? 0);
    this.now = options.now ?? Date.now;
  }

  /** Runs one stage to its end and reports it. */
  async execute(spec: ExecSpec, options: ExecuteOptions = {}): Promise<StageResult> {
    const run = new StageRun({
      spec,
      engine: this.engine,
      procs: this.procs,
      reporter: options.reporter ?? SILENT,
      now: this.now,
      timeout: options.timeout ?? 0,
      caches: options.caches,
      artifacts: options.artifacts,
      fetchArtifacts:
        (spec.artifactsFrom?.length ?? 0) > 0
          ? artifactsFetch(spec.artifactsFrom ?? [], options.artifacts, spec.workspace.path, options.signal)
          : undefined,
    });
    return run.execute(options.signal);
  }
}
