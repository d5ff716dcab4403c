import type { Repo } from '../../core/repo.js';
import type { ScmCommitRef, ScmProvider } from '../../core/scm.js';
import type { UserStore } from '../../core/user.js';
import { scmTokenOf } from '../auth/scm-token.js';
import { buildRequestOf, type RequestFor } from './request.js';
import type { Trigger, TriggerResult } from './trigger.js';

/** What building a repository's own commit needs. */
export interface CommitBuildsDeps {
  readonly users: Pick<UserStore, 'find'>;
  readonly provider: Pick<ScmProvider, 'findCommit'>;
  readonly trigger: Pick<Trigger, 'create'>;
}

/**
 * Builds of a branch head or a given commit that no webhook asked for (custom builds, cron jobs): the
 * commit is looked up at the provider with the token of the account that enabled the repository, as
 * the pipeline file is read with it. The provider's errors pass through (NOT_FOUND for a missing
 * branch or commit).
 */
export class CommitBuilds {
  readonly #deps: CommitBuildsDeps;

  constructor(deps: CommitBuildsDeps) {
    this.#deps = deps;
  }

  async build(repo: Repo, at: ScmCommitRef, what: RequestFor): Promise<TriggerResult> {
    const owner = await this.#deps.users.find(repo.userId);
    if (owner === undefined || !owner.active) {
      return {
        kind: 'skipped',
        reason: 'the account that enabled the repository is gone or inactive; enable it again',
      };
    }
    const commit = await this.#deps.provider.findCommit(
      scmTokenOf(owner),
      { namespace: repo.namespace, name: repo.name },
      at,
    );
    return this.#deps.trigger.create(repo, buildRequestOf(repo, commit, what));
  }
}
