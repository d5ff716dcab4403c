import type { BuildEvent } from '../../core/build.js';
import type { BuildFacts, RepoFacts, StageFacts, SystemFacts } from '../../pipeline/index.js';
import {
  toMillis,
  type WireBuild,
  type WireDetails,
  type WireRepo,
  type WireStage,
} from '../client/wire/index.js';

/** The repository as the compiler reads it. */
export function repoFacts(repo: WireRepo): RepoFacts {
  return {
    slug: repo.slug,
    namespace: repo.namespace,
    name: repo.name,
    scm: repo.scm,
    cloneUrl: repo.git_http_url,
    cloneUrlSsh: repo.git_ssh_url,
    link: repo.link,
    defaultBranch: repo.default_branch,
    private: repo.private,
    visibility: repo.visibility,
  };
}

/** The build as the compiler reads it (times back in milliseconds). */
export function buildFacts(build: WireBuild): BuildFacts {
  return {
    number: build.number,
    parent: build.parent,
    event: build.event as BuildEvent,
    action: build.action,
    trigger: build.trigger,
    link: build.link,
    title: build.title,
    message: build.message,
    before: build.before,
    after: build.after,
    ref: build.ref,
    source: build.source,
    target: build.target,
    authorLogin: build.author_login,
    authorName: build.author_name,
    authorEmail: build.author_email,
    authorAvatar: build.author_avatar,
    params: build.params,
    cron: build.cron,
    deployTo: build.deploy_to,
    deployId: build.deploy_id,
    debug: build.debug,
    created: toMillis(build.created),
    started: toMillis(build.started),
    finished: toMillis(build.finished),
  };
}

/** The stage being run, started now on `machine`. */
export function stageFacts(stage: WireStage, machine: string, now: number): StageFacts {
  return {
    name: stage.name,
    number: stage.number,
    os: stage.os,
    arch: stage.arch,
    variant: stage.variant,
    machine,
    dependsOn: stage.depends_on,
    started: now,
    stopped: 0,
  };
}

/** The server as steps see it. */
export function systemFacts(details: WireDetails): SystemFacts {
  return { proto: details.system.proto, host: details.system.host, version: details.system.version };
}
