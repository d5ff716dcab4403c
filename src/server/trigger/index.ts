/** Webhook → build: the Trigger and the rules it applies (skip directives, pipeline selection). */
export { Trigger, type BuildRequest, type TriggerDeps, type TriggerResult } from './trigger.js';
export { DEFAULT_PIPELINE_FILES } from './pipeline-file.js';
export { HOOK_TRIGGER } from './new-build.js';
export { CRON_TRIGGER, buildRequestOf, type RequestFor } from './request.js';
export { CommitBuilds, type CommitBuildsDeps } from './commit-builds.js';
export { Rebuilds, type RebuildBy, type RebuildsDeps } from './rebuilds.js';
