/**
 * The runner core shared by every runner kind: the stage executor (DAG, max procs, policies,
 * cancel, timeouts, exit 78), secret masking and the reporter interface. docs/runner-core.md.
 */
export { StageExecutor, type ExecuteOptions, type StageExecutorOptions } from './executor.js';
export { EXIT_ENGINE_ERROR, EXIT_KILLED, EXIT_SKIP_REST } from './outcome.js';
export { combineReporters, type StageReporter, type StageResult, type StepResult } from './reporter.js';
export { MemoryReporter, type ReportedEvent } from './memory-reporter.js';
export { createMasker, MASK, type Masker } from './masker.js';
export { graphProblem } from './graph.js';
export { Semaphore, type Release } from './semaphore.js';
