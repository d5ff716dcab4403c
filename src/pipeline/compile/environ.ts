import type { CompileInput, Netrc } from './input.js';
import { semverEnviron } from './semver.js';
import type { Workspace } from './workspace.js';

/**
 * The variables every step of a run gets. The `DRONE_*` names are the ones existing plugin images read
 * (same names and formats as Drone: times in epoch seconds, booleans as `true`/`false`); each also
 * exists as `SVC_*` (svc's own name), and Drone 0.8's `CI_*` names are kept for old scripts.
 * `DRONE_BUILD_STATUS` and `DRONE_STAGE_STATUS` start as `success`; the runner core sets them (and
 * `DRONE_FAILED_STEPS`) when a step starts after a failure.
 */
export function runEnviron(input: CompileInput, workspace: Workspace): Record<string, string> {
  const { stage, pipeline, now } = input;
  const seconds = (ms: number): string => epochSeconds(ms, now);
  return {
    ...buildEnviron(input),
    ...withAliases({
      DRONE_STAGE_KIND: 'pipeline',
      DRONE_STAGE_TYPE: pipeline.type,
      DRONE_STAGE_NAME: stage.name,
      DRONE_STAGE_NUMBER: String(stage.number),
      DRONE_STAGE_MACHINE: stage.machine,
      DRONE_STAGE_OS: stage.os,
      DRONE_STAGE_ARCH: stage.arch,
      DRONE_STAGE_VARIANT: stage.variant,
      DRONE_STAGE_STATUS: 'success',
      DRONE_STAGE_STARTED: seconds(stage.started),
      DRONE_STAGE_FINISHED: seconds(stage.stopped),
      DRONE_STAGE_DEPENDS_ON: stage.dependsOn.join(','),
      DRONE_WORKSPACE: workspace.full,
      DRONE_WORKSPACE_BASE: workspace.base,
      DRONE_WORKSPACE_PATH: workspace.path,
    }),
    ...legacyEnviron({
      DRONE_WORKSPACE: workspace.full,
      DRONE_WORKSPACE_BASE: workspace.base,
      DRONE_WORKSPACE_PATH: workspace.path,
    }),
  };
}

/**
 * The variables that describe the server, the repository and the build, without the stage: what the
 * server knows when it substitutes `${…}` in the pipeline file, and the base of every step's variables.
 */
export function buildEnviron(
  input: Pick<CompileInput, 'repo' | 'build' | 'system' | 'now'>,
): Record<string, string> {
  const { repo, build, system, now } = input;
  const seconds = (ms: number): string => epochSeconds(ms, now);
  const drone: Record<string, string> = {
    DRONE_SYSTEM_PROTO: system.proto,
    DRONE_SYSTEM_HOST: system.host,
    DRONE_SYSTEM_HOSTNAME: system.host,
    DRONE_SYSTEM_VERSION: system.version,
    DRONE_REPO: repo.slug,
    DRONE_REPO_SCM: repo.scm,
    DRONE_REPO_OWNER: repo.namespace,
    DRONE_REPO_NAMESPACE: repo.namespace,
    DRONE_REPO_NAME: repo.name,
    DRONE_REPO_LINK: repo.link,
    DRONE_REPO_BRANCH: repo.defaultBranch,
    DRONE_REPO_VISIBILITY: repo.visibility,
    DRONE_REPO_PRIVATE: String(repo.private),
    DRONE_REMOTE_URL: repo.cloneUrl,
    DRONE_GIT_HTTP_URL: repo.cloneUrl,
    DRONE_GIT_SSH_URL: repo.cloneUrlSsh,
    DRONE_BRANCH: build.target,
    DRONE_SOURCE_BRANCH: build.source,
    DRONE_TARGET_BRANCH: build.target,
    DRONE_COMMIT: build.after,
    DRONE_COMMIT_SHA: build.after,
    DRONE_COMMIT_BEFORE: build.before,
    DRONE_COMMIT_AFTER: build.after,
    DRONE_COMMIT_REF: build.ref,
    DRONE_COMMIT_BRANCH: build.target,
    DRONE_COMMIT_LINK: build.link,
    DRONE_COMMIT_MESSAGE: build.message,
    DRONE_COMMIT_AUTHOR: build.authorLogin,
    DRONE_COMMIT_AUTHOR_NAME: build.authorName,
    DRONE_COMMIT_AUTHOR_EMAIL: build.authorEmail,
    DRONE_COMMIT_AUTHOR_AVATAR: build.authorAvatar,
    DRONE_BUILD_NUMBER: String(build.number),
    DRONE_BUILD_PARENT: String(build.parent),
    DRONE_BUILD_EVENT: build.event,
    DRONE_BUILD_ACTION: build.action,
    DRONE_BUILD_TRIGGER: build.trigger,
    DRONE_BUILD_STATUS: 'success',
    DRONE_BUILD_DEBUG: String(build.debug),
    DRONE_BUILD_CREATED: seconds(build.created),
    DRONE_BUILD_STARTED: seconds(build.started),
    DRONE_BUILD_FINISHED: seconds(build.finished),
    DRONE_BUILD_LINK: `${system.proto}://${system.host}/${repo.slug}/${build.number}`,
    DRONE_DEPLOY_TO: build.deployTo,
    DRONE_DEPLOY_ID: String(build.deployId),
    DRONE_CRON: build.cron,
    ...refEnviron(build.ref, build.event, build.title),
  };
  return {
    ...withAliases(drone),
    ...legacyEnviron(drone),
    CI: 'true',
    DRONE: 'true',
    SVC: 'true',
    ...gitIdentity(build.authorName, build.authorEmail),
  };
}

/** Drone's time format: epoch seconds; a time not reached yet reads as now. */
function epochSeconds(ms: number, now: number): string {
  return String(Math.floor((ms > 0 ? ms : now) / 1000));
}

/** Variables that describe the step itself. */
export function stepEnviron(name: string, number: number): Record<string, string> {
  return withAliases({ DRONE_STEP_NAME: name, DRONE_STEP_NUMBER: String(number) });
}

/** The clone credentials as variables; all of them are secrets to mask except the machine name. */
export function netrcEnviron(netrc: Netrc): {
  envs: Record<string, string>;
  secrets: Record<string, string>;
} {
  const envs: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const prefix of ['DRONE', 'SVC', 'CI']) {
    envs[`${prefix}_NETRC_MACHINE`] = netrc.machine;
    secrets[`${prefix}_NETRC_USERNAME`] = netrc.login;
    secrets[`${prefix}_NETRC_PASSWORD`] = netrc.password;
  }
  return { envs, secrets };
}

function refEnviron(ref: string, event: string, title: string): Record<string, string> {
  const env: Record<string, string> = {};
  if (ref.startsWith('refs/tags/')) {
    env.DRONE_TAG = ref.slice('refs/tags/'.length);
    Object.assign(env, semverEnviron(env.DRONE_TAG));
  }
  if (event === 'pull_request') {
    env.DRONE_PULL_REQUEST = /\d+/.exec(ref)?.[0] ?? '';
    env.DRONE_PULL_REQUEST_TITLE = title;
  }
  return env;
}

/** Every `DRONE_X` also as `SVC_X`. */
function withAliases(drone: Record<string, string>): Record<string, string> {
  const result = { ...drone };
  for (const [name, value] of Object.entries(drone)) {
    if (name.startsWith('DRONE_')) result[`SVC_${name.slice('DRONE_'.length)}`] = value;
  }
  return result;
}

const LEGACY: Readonly<Record<string, string>> = {
  CI_REPO: 'DRONE_REPO',
  CI_REPO_NAME: 'DRONE_REPO',
  CI_REPO_LINK: 'DRONE_REPO_LINK',
  CI_REPO_REMOTE: 'DRONE_REMOTE_URL',
  CI_REMOTE_URL: 'DRONE_REMOTE_URL',
  CI_REPO_PRIVATE: 'DRONE_REPO_PRIVATE',
  CI_BUILD_NUMBER: 'DRONE_BUILD_NUMBER',
  CI_BUILD_EVENT: 'DRONE_BUILD_EVENT',
  CI_BUILD_STATUS: 'DRONE_BUILD_STATUS',
  CI_BUILD_LINK: 'DRONE_BUILD_LINK',
  CI_BUILD_CREATED: 'DRONE_BUILD_CREATED',
  CI_BUILD_STARTED: 'DRONE_BUILD_STARTED',
  CI_BUILD_FINISHED: 'DRONE_BUILD_FINISHED',
  CI_COMMIT_SHA: 'DRONE_COMMIT_SHA',
  CI_COMMIT_REF: 'DRONE_COMMIT_REF',
  CI_COMMIT_BRANCH: 'DRONE_COMMIT_BRANCH',
  CI_COMMIT_MESSAGE: 'DRONE_COMMIT_MESSAGE',
  CI_COMMIT_AUTHOR: 'DRONE_COMMIT_AUTHOR',
  CI_COMMIT_AUTHOR_NAME: 'DRONE_COMMIT_AUTHOR_NAME',
  CI_COMMIT_AUTHOR_EMAIL: 'DRONE_COMMIT_AUTHOR_EMAIL',
  CI_COMMIT_AUTHOR_AVATAR: 'DRONE_COMMIT_AUTHOR_AVATAR',
  CI_TAG: 'DRONE_TAG',
  CI_WORKSPACE: 'DRONE_WORKSPACE',
  CI_WORKSPACE_BASE: 'DRONE_WORKSPACE_BASE',
  CI_WORKSPACE_PATH: 'DRONE_WORKSPACE_PATH',
  CI_SYSTEM_HOST: 'DRONE_SYSTEM_HOST',
  CI_SYSTEM_PROTO: 'DRONE_SYSTEM_PROTO',
};

/** Drone 0.8's `CI_*` names, for scripts written against them. */
function legacyEnviron(drone: Readonly<Record<string, string>>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [legacy, name] of Object.entries(LEGACY)) {
    const value = drone[name];
    if (value !== undefined) result[legacy] = value;
  }
  return result;
}

/** Who git commits made by steps are from: the build's author, as Drone sets it. */
function gitIdentity(name: string, email: string): Record<string, string> {
  const author = name !== '' ? name : 'svc';
  const address = email !== '' ? email : 'svc@localhost';
  return {
    GIT_AUTHOR_NAME: author,
    GIT_AUTHOR_EMAIL: address,
    GIT_COMMITTER_NAME: author,
    GIT_COMMITTER_EMAIL: address,
  };
}
