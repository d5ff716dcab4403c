/** Commit statuses at the git provider. */
export { CommitStatusReporter, type StatusReporterDeps } from './reporter.js';
export { commitState, describeStatus } from './describe.js';
