import type { Build } from '../../../core/build.js';
import type { Stage, StageWithSteps } from '../../../core/stage.js';
import type { Step } from '../../../core/step.js';
import { seconds } from './time.js';

/**
 * A build as Drone's API shows it (snake_case, times in epoch seconds). The pipeline file (`config`)
 * is not part of it, as in Drone. `stages` is present when given (single-build answers), absent in lists.
 */
export function buildJson(
  build: Build,
  stages?: readonly (Stage | StageWithSteps)[],
): Record<string, unknown> {
  return {
    id: build.id,
    repo_id: build.repoId,
    trigger: build.trigger,
    number: build.number,
    parent: build.parent,
    status: build.status,
    error: build.error,
    event: build.event,
    action: build.action,
    link: build.link,
    timestamp: seconds(build.created),
    title: build.title,
    message: build.message,
    before: build.before,
    after: build.after,
    ref: build.ref,
    source_repo: build.sourceRepo,
    source: build.source,
    target: build.target,
    author_login: build.authorLogin,
    author_name: build.authorName,
    author_email: build.authorEmail,
    author_avatar: build.authorAvatar,
    sender: build.sender,
    params: build.params,
    cron: build.cron,
    deploy_to: build.deployTo,
    deploy_id: build.deployId,
    debug: build.debug,
    started: seconds(build.started),
    finished: seconds(build.finished),
    created: seconds(build.created),
    updated: seconds(build.updated),
    version: build.version,
    ...(stages === undefined ? {} : { stages: stages.map(stageJson) }),
  };
}

/** A stage as Drone's API shows it, with its steps when they were loaded. */
export function stageJson(stage: Stage | StageWithSteps): Record<string, unknown> {
  return {
    id: stage.id,
    repo_id: stage.repoId,
    build_id: stage.buildId,
    number: stage.number,
    name: stage.name,
    kind: stage.kind,
    type: stage.type,
    status: stage.status,
    error: stage.error,
    errignore: stage.errIgnore,
    exit_code: stage.exitCode,
    machine: stage.machine,
    os: stage.os,
    arch: stage.arch,
    variant: stage.variant,
    kernel: stage.kernel,
    limit: stage.limit,
    started: seconds(stage.started),
    stopped: seconds(stage.stopped),
    created: seconds(stage.created),
    updated: seconds(stage.updated),
    version: stage.version,
    on_success: stage.onSuccess,
    on_failure: stage.onFailure,
    depends_on: stage.dependsOn,
    labels: stage.labels,
    ...('steps' in stage ? { steps: stage.steps.map(stepJson) } : {}),
  };
}

/** A step as Drone's API shows it; svc names the stage reference `stage_id`. */
export function stepJson(step: Step): Record<string, unknown> {
  return {
    id: step.id,
    stage_id: step.stageId,
    number: step.number,
    name: step.name,
    status: step.status,
    error: step.error,
    errignore: step.errIgnore,
    exit_code: step.exitCode,
    started: seconds(step.started),
    stopped: seconds(step.stopped),
    version: step.version,
    depends_on: step.dependsOn,
    image: step.image,
    detached: step.detached,
  };
}
