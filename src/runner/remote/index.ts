/**
 * Running stages for a server: prepare (lint, compile), execute over the runner core, report
 * (steps, numbered log batches, final logs, heartbeats, cancellation), retrying until acknowledged.
 */
export {
  RemoteStageRunner,
  DEFAULT_TIMINGS,
  type RemoteStageRunnerOptions,
  type RemoteTimings,
  type RunSignals,
} from './stage-runner.js';
export { prepareStage, type PrepareSettings, type Prepared } from './prepare.js';
export { RemoteReporter, type LogBatching, type RemoteReporterOptions } from './reporter.js';
export { LogStream, type LogStreamOptions, type StoredBatches } from './log-stream.js';
export { Backoff, DEFAULT_BACKOFF, sleep, type BackoffOptions } from './backoff.js';
export { deliver, AbandonedError, type DeliveryOptions } from './deliver.js';
