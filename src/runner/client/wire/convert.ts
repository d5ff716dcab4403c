import type { Build } from '../../../core/build.js';
import type { Repo } from '../../../core/repo.js';
import type { Stage } from '../../../core/stage.js';
import type { Step } from '../../../core/step.js';
import type { WireBuild, WireRepo, WireStage, WireStep } from './schemas.js';

/** Epoch milliseconds (svc's clock) as the Unix seconds of the wire. */
export function toSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Unix seconds of the wire as epoch milliseconds. */
export function toMillis(seconds: number): number {
  return seconds * 1000;
}

/** A step as the protocol sends it. */
export function stepToWire(step: Step): WireStep {
  return {
    id: step.id,
    step_id: step.stageId,
    number: step.number,
    name: step.name,
    status: step.status,
    error: step.error,
    errignore: step.errIgnore,
    exit_code: step.exitCode,
    started: toSeconds(step.started),
    stopped: toSeconds(step.stopped),
    version: step.version,
    depends_on: step.dependsOn,
    image: step.image,
    detached: step.detached,
    attempts: step.attempts,
  };
}

/** A stage and its steps as the protocol sends them. */
export function stageToWire(stage: Stage, steps: readonly Step[]): WireStage {
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
    started: toSeconds(stage.started),
    stopped: toSeconds(stage.stopped),
    created: toSeconds(stage.created),
    updated: toSeconds(stage.updated),
    version: stage.version,
    on_success: stage.onSuccess,
    on_failure: stage.onFailure,
    depends_on: stage.dependsOn,
    labels: stage.labels,
    steps: steps.map(stepToWire),
  };
}

/** A build as the protocol sends it. */
export function buildToWire(build: Build): WireBuild {
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
    timestamp: toSeconds(build.created),
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
    started: toSeconds(build.started),
    finished: toSeconds(build.finished),
    created: toSeconds(build.created),
    updated: toSeconds(build.updated),
    version: build.version,
    ...changedFilesToWire(build.changedFiles),
  };
}

function changedFilesToWire(changed: Build['changedFiles']): Partial<WireBuild> {
  if (changed === undefined) return {};
  return {
    ...(changed.files === undefined ? {} : { changed_files: changed.files }),
    ...(changed.unknown === undefined ? {} : { changed_files_unknown: changed.unknown }),
    paths_skipped: changed.skipped,
  };
}

/** A repository as the protocol sends it (never its webhook secret). */
export function repoToWire(repo: Repo): WireRepo {
  return {
    id: repo.id,
    uid: repo.uid,
    user_id: repo.userId,
    namespace: repo.namespace,
    name: repo.name,
    slug: repo.slug,
    scm: repo.scm,
    git_http_url: repo.cloneUrl,
    git_ssh_url: repo.cloneUrlSsh,
    link: repo.link,
    default_branch: repo.defaultBranch,
    private: repo.private,
    visibility: repo.visibility,
    active: repo.active,
    config_path: repo.configPath,
    trusted: repo.trusted,
    protected: repo.protected,
    ignore_forks: repo.ignoreForks,
    ignore_pull_requests: repo.ignorePullRequests,
    auto_cancel_pull_requests: repo.cancelPulls,
    auto_cancel_pushes: repo.cancelPush,
    timeout: repo.timeout,
    counter: repo.counter,
    synced: toSeconds(repo.synced),
    created: toSeconds(repo.created),
    updated: toSeconds(repo.updated),
    version: repo.version,
  };
}
