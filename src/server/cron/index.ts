/** Cron jobs: expressions, the build a job asks for, and the scheduler that runs due jobs. */
export { nextRun } from './expr.js';
export { cronBuildOf } from './job.js';
export { CronScheduler, type CronSchedulerOptions } from './scheduler.js';
