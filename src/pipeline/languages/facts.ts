import type { Build } from '../../core/build.js';
import type { Repo } from '../../core/repo.js';
import type { LanguageFacts } from './types.js';

/** The parts of a build that configuration programs see; a build need not exist yet. */
export type FactsBuild = Pick<
  Build,
  | 'event'
  | 'action'
  | 'cron'
  | 'deployTo'
  | 'link'
  | 'source'
  | 'target'
  | 'before'
  | 'after'
  | 'ref'
  | 'title'
  | 'message'
  | 'sourceRepo'
  | 'authorLogin'
  | 'authorName'
  | 'authorEmail'
  | 'authorAvatar'
  | 'sender'
  | 'debug'
  | 'params'
>;

export type FactsRepo = Pick<
  Repo,
  | 'uid'
  | 'name'
  | 'namespace'
  | 'slug'
  | 'cloneUrl'
  | 'cloneUrlSsh'
  | 'link'
  | 'defaultBranch'
  | 'configPath'
  | 'private'
  | 'visibility'
  | 'active'
  | 'trusted'
  | 'protected'
  | 'ignoreForks'
  | 'ignorePullRequests'
>;

/**
 * Drone's names for the build and repository facts (its `build.*` / `repo.*` Jsonnet external
 * variables and Starlark `ctx.build` / `ctx.repo` fields), so that existing `.drone.jsonnet` and
 * `.drone.star` files read the same values here. `branch` is the target branch and `commit` the
 * head commit, as in Drone.
 */
export function languageFacts(build: FactsBuild, repo: FactsRepo): LanguageFacts {
  return {
    build: {
      event: build.event,
      action: build.action,
      cron: build.cron,
      environment: build.deployTo,
      link: build.link,
      branch: build.target,
      source: build.source,
      before: build.before,
      after: build.after,
      target: build.target,
      ref: build.ref,
      commit: build.after,
      title: build.title,
      message: build.message,
      source_repo: build.sourceRepo,
      author_login: build.authorLogin,
      author_name: build.authorName,
      author_email: build.authorEmail,
      author_avatar: build.authorAvatar,
      sender: build.sender,
      debug: build.debug,
    },
    repo: {
      uid: repo.uid,
      name: repo.name,
      namespace: repo.namespace,
      slug: repo.slug,
      git_http_url: repo.cloneUrl,
      git_ssh_url: repo.cloneUrlSsh,
      link: repo.link,
      branch: repo.defaultBranch,
      config: repo.configPath,
      private: repo.private,
      visibility: repo.visibility,
      active: repo.active,
      trusted: repo.trusted,
      protected: repo.protected,
      ignore_forks: repo.ignoreForks,
      ignore_pull_requests: repo.ignorePullRequests,
    },
    params: { ...build.params },
  };
}
