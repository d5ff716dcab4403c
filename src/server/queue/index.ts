/**
 * The queue and scheduler of the server: stages wait in the database; StageQueue hands them to
 * long-polling runners, StageScheduler takes them through their life and settles their builds,
 * BuildWatches tells runners about cancellations, HeartbeatWatchdog fails stages of silent runners,
 * BuildActions cancels, approves and declines builds for the API.
 */
export { BuildActions, type BuildActionsDeps } from './build-actions.js';
export { BuildWatches, type BuildWatchesOptions } from './build-watches.js';
export { HeartbeatWatchdog, type HeartbeatWatchdogOptions } from './watchdog.js';
export { StageScheduler, type SchedulerDeps } from './scheduler.js';
export { StageQueue, type StageQueueOptions } from './stage-queue.js';
export type { StageReport, StepReport } from './reports.js';
export { dependentChanges, finalBuildStatus } from './transitions.js';
