import type { Logger } from 'pino';
import type { Build } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import type { ScmProvider, ScmStatus } from '../../core/scm.js';
import type { UserStore } from '../../core/user.js';
import { scmTokenOf } from '../auth/scm-token.js';
import { KeyedLock } from '../trigger/keyed-lock.js';
import { publicUrl, type ServerAddress } from '../web/address.js';
import { commitState, describeStatus } from './describe.js';

/** What reporting commit statuses needs. */
export interface StatusReporterDeps {
  readonly provider: Pick<ScmProvider, 'setStatus'>;
  readonly users: Pick<UserStore, 'find'>;
  /** SVC_STATUS_DISABLED and SVC_STATUS_NAME. */
  readonly status: { readonly disabled: boolean; readonly name: string };
  /** Where build pages are (SVC_SERVER_PROTO, SVC_SERVER_HOST): the statuses link to them. */
  readonly address: ServerAddress;
  readonly logger: Logger;
}

/** Builds whose last posted state is remembered; beyond this, the oldest are forgotten. */
const REMEMBERED_BUILDS = 10_000;

/**
 * Reports build status to the git provider as a commit status on the build's commit, named
 * SVC_STATUS_NAME and linking to the build page, with the token of the user who enabled the
 * repository. A state is posted only when it differs from the last one posted for the build (kept in
 * memory: after a restart the current state is posted once more, which is harmless). Posts for one
 * build go out in the order of the updates. Failures are logged, never thrown: a provider outage
 * must not disturb builds. SVC_STATUS_DISABLED turns all of it off.
 */
export class CommitStatusReporter implements BuildListener {
  readonly #deps: StatusReporterDeps;
  readonly #posted = new Map<number, ScmStatus['state']>();
  readonly #perBuild = new KeyedLock();

  constructor(deps: StatusReporterDeps) {
    this.#deps = deps;
  }

  async buildUpdated(change: { repo: Repo; build: Build; stages: Stage[] }): Promise<void> {
    if (this.#deps.status.disabled) return;
    await this.#perBuild.run(String(change.build.id), () => this.#report(change.repo, change.build));
  }

  async #report(repo: Repo, build: Build): Promise<void> {
    const state = commitState(build.status);
    if (this.#posted.get(build.id) === state || build.after === '') return;
    try {
      const user = await this.#deps.users.find(repo.userId);
      if (user === undefined || user.scmToken === '') {
        this.#deps.logger.warn(
          { repo: repo.slug, build: build.number },
          'commit status: the repository has no user with provider credentials',
        );
        return;
      }
      await this.#deps.provider.setStatus(
        scmTokenOf(user),
        { namespace: repo.namespace, name: repo.name },
        build.after,
        {
          state,
          context: this.#deps.status.name,
          ref: build.ref,
          description: describeStatus(build.status),
          targetUrl: publicUrl(this.#deps.address, `/${repo.slug}/${build.number}`),
        },
      );
      this.#remember(build.id, state);
    } catch (error) {
      this.#deps.logger.warn(
        { err: error, repo: repo.slug, build: build.number, state },
        'commit status not posted',
      );
    }
  }

  #remember(buildId: number, state: ScmStatus['state']): void {
    this.#posted.delete(buildId);
    this.#posted.set(buildId, state);
    if (this.#posted.size > REMEMBERED_BUILDS) {
      const oldest = this.#posted.keys().next();
      if (oldest.done !== true) this.#posted.delete(oldest.value);
    }
  }
}
