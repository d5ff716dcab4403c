import type { Logger } from 'pino';
import type { Build } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import type { GaugeSource } from '../../core/gauges.js';
import type { Repo } from '../../core/repo.js';
import type { Stage } from '../../core/stage.js';
import type { ScmProvider, ScmStatus } from '../../core/scm.js';
import { isDone } from '../../core/status.js';
import type { TestReportStore } from '../../core/test-report.js';
import type { UserStore } from '../../core/user.js';
import { KeyedLock } from '../trigger/keyed-lock.js';
import { publicUrl, type ServerAddress } from '../web/address.js';
import { statusContext } from './context.js';
import { commitState, describeStatus, withTestCounts } from './describe.js';
import { StatusPoster } from './poster.js';

/** What reporting commit statuses needs. */
export interface StatusReporterDeps {
  readonly provider: Pick<ScmProvider, 'setStatus'>;
  readonly users: Pick<UserStore, 'find'>;
  /** SVC_STATUS_DISABLED and SVC_STATUS_NAME. */
  readonly status: { readonly disabled: boolean; readonly name: string };
  /** Where build pages are (SVC_SERVER_PROTO, SVC_SERVER_HOST): the statuses link to them. */
  readonly address: ServerAddress;
  readonly logger: Logger;
  /** Posts the statuses, keeping failed ones for later; by default one that only logs failures. */
  readonly poster?: Pick<StatusPoster, 'post'>;
  /** A done build's test counts join its description ("412 passed, 3 failed"). */
  readonly tests?: Pick<TestReportStore, 'counts'>;
}

/** Builds under way whose last posted state is remembered; beyond this, the oldest are forgotten. */
const REMEMBERED_BUILDS = 10_000;
/**
 * Done builds whose final state is remembered: enough for the repeats a final report gets (a runner
 * retrying it after a lost answer, a replay re-telling the listeners), few enough to stay small.
 */
const REMEMBERED_DONE = 256;

/**
 * Reports build status to the git provider as a commit status on the build's commit, named
 * SVC_STATUS_NAME and linking to the build page, with the token of the user who enabled the
 * repository. A state is posted only when it differs from the last one posted for the build (kept in
 * memory: after a restart the current state is posted once more, which is harmless). Posts for one
 * build go out in the order of the updates. Failures never reach the build: the provider client
 * retries briefly, then the poster keeps the status in the outbox, posted later by the outbox loop
 * (StatusOutboxLoop). SVC_STATUS_DISABLED turns all of it off.
 */
export class CommitStatusReporter implements BuildListener, GaugeSource {
  readonly #deps: StatusReporterDeps;
  readonly #poster: Pick<StatusPoster, 'post'>;
  readonly #posted = new Map<number, ScmStatus['state']>();
  /** Final states posted, of the last REMEMBERED_DONE builds that ended. */
  readonly #done = new Map<number, ScmStatus['state']>();
  readonly #perBuild = new KeyedLock();

  constructor(deps: StatusReporterDeps) {
    this.#deps = deps;
    this.#poster = deps.poster ?? new StatusPoster(deps);
  }

  sizes(): Record<string, number> {
    return {
      posted_builds: this.#posted.size,
      done_builds: this.#done.size,
      locked_builds: this.#perBuild.size,
    };
  }

  async buildUpdated(change: { repo: Repo; build: Build; stages: Stage[] }): Promise<void> {
    if (this.#deps.status.disabled) return;
    await this.#perBuild.run(String(change.build.id), () => this.#report(change.repo, change.build));
  }

  /** The build's status in words, with its test counts once it is done and has tests. */
  async #description(build: Build): Promise<string> {
    const words = describeStatus(build.status);
    if (this.#deps.tests === undefined || !isDone(build.status)) return words;
    try {
      return withTestCounts(words, await this.#deps.tests.counts(build.id));
    } catch (error) {
      this.#deps.logger.warn(
        { err: error, build: build.number },
        'test counts left out of the commit status',
      );
      return words;
    }
  }

  async #report(repo: Repo, build: Build): Promise<void> {
    const state = commitState(build.status);
    const last = this.#posted.get(build.id) ?? this.#done.get(build.id);
    if (last === state || build.after === '') return;
    try {
      const outcome = await this.#poster.post({
        repo,
        buildId: build.id,
        commit: build.after,
        status: {
          state,
          context: statusContext(this.#deps.status.name, build),
          ref: build.ref,
          description: await this.#description(build),
          targetUrl: publicUrl(this.#deps.address, `/${repo.slug}/${build.number}`),
        },
      });
      if (outcome.kind !== 'posted') return;
      // A done build changes no more (a restart is a new build): remembering it with the running
      // ones would keep one entry per build ever reported, up to REMEMBERED_BUILDS (found by the
      // soak benchmark). Its final state is kept among the last REMEMBERED_DONE, so that a repeated
      // final report is not posted again.
      if (isDone(build.status)) {
        this.#posted.delete(build.id);
        remember(this.#done, build.id, state, REMEMBERED_DONE);
      } else remember(this.#posted, build.id, state, REMEMBERED_BUILDS);
    } catch (error) {
      // The outbox itself could not be written (database down): the status is lost, the build is not.
      this.#deps.logger.warn(
        { err: error, repo: repo.slug, build: build.number, state },
        'commit status not posted',
      );
    }
  }
}

/** Sets `buildId`'s state as the newest entry of `states`, dropping the oldest beyond `most`. */
function remember(
  states: Map<number, ScmStatus['state']>,
  buildId: number,
  state: ScmStatus['state'],
  most: number,
): void {
  states.delete(buildId);
  states.set(buildId, state);
  if (states.size > most) {
    const oldest = states.keys().next();
    if (oldest.done !== true) states.delete(oldest.value);
  }
}
