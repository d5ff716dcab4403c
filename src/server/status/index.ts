/** Commit statuses at the git provider. */
export { CommitStatusReporter, type StatusReporterDeps } from './reporter.js';
export { commitState, describeStatus } from './describe.js';
export { StatusPoster, type StatusPosterDeps, type StatusTarget, type PostOutcome } from './poster.js';
export { StatusOutboxLoop, type OutboxLoopDeps } from './outbox-loop.js';
export { statusOutbox, type StatusOutboxWiring } from './outbox-wiring.js';
