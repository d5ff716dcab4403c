import type { Logger } from 'pino';
import { SvcError } from '../../core/errors.js';
import type { Repo, RepoStore } from '../../core/repo.js';
import type { ScmProvider, ScmStatus } from '../../core/scm.js';
import type { PendingStatus, StatusOutboxStore } from '../../core/status-outbox.js';
import type { UserStore } from '../../core/user.js';
import { scmTokenOf } from '../auth/scm-token.js';
import { KeyedLock } from '../trigger/keyed-lock.js';

/** What posting commit statuses needs. */
export interface StatusPosterDeps {
  readonly provider: Pick<ScmProvider, 'setStatus'>;
  readonly users: Pick<UserStore, 'find'>;
  /** Where failed statuses are kept for later; without it they are only logged (tests of the reporter alone). */
  readonly keep?: { readonly outbox: StatusOutboxStore; readonly repos: Pick<RepoStore, 'find'> };
  readonly logger: Logger;
  readonly now?: () => number;
}

/** One status for one commit of a build. */
export interface StatusTarget {
  readonly repo: Pick<Repo, 'id' | 'namespace' | 'name' | 'slug' | 'userId'>;
  readonly buildId: number;
  readonly commit: string;
  readonly status: ScmStatus;
}

/** How an attempt ended: posted, kept for a later attempt, or dropped for good (and why). */
export type PostOutcome =
  { kind: 'posted' } | { kind: 'kept'; error: SvcError } | { kind: 'dropped'; reason: string };

/** The first wait of a kept status; doubled after each failed attempt of the outbox loop. */
export const FIRST_RETRY_MS = 10_000;
/** The longest wait between two attempts of a kept status. */
export const MAX_RETRY_MS = 10 * 60_000;

/**
 * Refusals no later attempt can change: the repository or commit is gone, svc may not write
 * statuses there, or the provider rejects the status itself. An UNAUTHORIZED token is kept: the
 * owner may log in again.
 */
const PERMANENT = new Set(['NOT_FOUND', 'FORBIDDEN', 'INVALID_INPUT']);

/**
 * Posts commit statuses through the outbox (StatusOutboxStore): each is written there before it is
 * posted and removed once posted, so that one the provider did not take after the client's own
 * retries — or one under way when the server stopped — is posted later, after a restart too. Posts for one
 * repository, commit and context run one at a time in this process, and a posted status removes the
 * older unsent one of its context, so that an old state is never posted after a newer one.
 */
export class StatusPoster {
  readonly #deps: StatusPosterDeps;
  readonly #now: () => number;
  readonly #perKey = new KeyedLock();

  constructor(deps: StatusPosterDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /**
   * Posts a new state. It is written to the outbox first (replacing an unsent older state), so that
   * a server stopped or killed during the post — the client's retries take seconds — leaves it to
   * the outbox loop after the restart; it is removed once posted or refused for good, and kept with
   * its error for a later attempt when the provider fails.
   */
  post(target: StatusTarget): Promise<PostOutcome> {
    return this.#perKey.run(keyOf(target.repo.id, target.commit, target.status.context), async () => {
      const outbox = this.#deps.keep?.outbox;
      const entry = {
        repoId: target.repo.id,
        buildId: target.buildId,
        commit: target.commit,
        status: target.status,
      };
      if (outbox !== undefined) {
        const now = this.#now();
        // Due only once the client's own retries are surely over.
        await outbox
          .put({ ...entry, attempts: 0, nextAttempt: now + FIRST_RETRY_MS, lastError: '' }, now)
          .catch((error: unknown) => {
            this.#deps.logger.warn(
              { err: error, repo: target.repo.slug },
              'commit status: the outbox cannot be written',
            );
          });
      }
      const outcome = await this.#attempt(target);
      if (outbox === undefined) return outcome;
      if (outcome.kind !== 'kept') {
        await outbox.removeFor(target.repo.id, target.commit, target.status.context);
        return outcome;
      }
      const now = this.#now();
      await outbox.put(
        {
          ...entry,
          attempts: 1,
          nextAttempt: nextAttemptAfter(1, outcome.error, now),
          lastError: outcome.error.message,
        },
        now,
      );
      return outcome;
    });
  }

  /** Posts a kept status again: removed once posted or hopeless, else due later (a longer wait each time). */
  retry(entry: PendingStatus): Promise<PostOutcome> {
    const keep = this.#deps.keep;
    if (keep === undefined) return Promise.resolve({ kind: 'dropped', reason: 'no outbox' });
    return this.#perKey.run(keyOf(entry.repoId, entry.commit, entry.status.context), async () => {
      const repo = await keep.repos.find(entry.repoId);
      if (repo === undefined) {
        await keep.outbox.remove(entry.id);
        return { kind: 'dropped', reason: 'the repository is gone' };
      }
      const outcome = await this.#attempt({
        repo,
        buildId: entry.buildId,
        commit: entry.commit,
        status: entry.status,
      });
      if (outcome.kind === 'kept') {
        const attempts = entry.attempts + 1;
        await keep.outbox.retryLater(
          entry.id,
          nextAttemptAfter(attempts, outcome.error, this.#now()),
          outcome.error.message,
        );
      } else {
        await keep.outbox.remove(entry.id);
      }
      return outcome;
    });
  }

  async #attempt(target: StatusTarget): Promise<PostOutcome> {
    const where = { repo: target.repo.slug, commit: target.commit, state: target.status.state };
    const user = await this.#deps.users.find(target.repo.userId);
    if (user === undefined || user.scmToken === '') {
      this.#deps.logger.warn(where, 'commit status: the repository has no user with provider credentials');
      return { kind: 'dropped', reason: 'no user with provider credentials' };
    }
    try {
      await this.#deps.provider.setStatus(
        scmTokenOf(user),
        { namespace: target.repo.namespace, name: target.repo.name },
        target.commit,
        target.status,
      );
      return { kind: 'posted' };
    } catch (error) {
      const failure =
        error instanceof SvcError ? error : new SvcError('INTERNAL', String(error), { cause: error });
      if (PERMANENT.has(failure.code)) {
        this.#deps.logger.warn({ ...where, err: failure }, 'commit status refused; not posted');
        return { kind: 'dropped', reason: failure.message };
      }
      const later = this.#deps.keep === undefined ? '' : '; kept to post later';
      this.#deps.logger.warn({ ...where, err: failure }, `commit status not posted${later}`);
      return { kind: 'kept', error: failure };
    }
  }
}

/**
 * When a status that failed `attempts` times is tried again: FIRST_RETRY_MS doubled per attempt up
 * to MAX_RETRY_MS, and never before a rate limit the provider announced resets.
 */
export function nextAttemptAfter(attempts: number, error: SvcError, now: number): number {
  const wait = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
  // ScmRateLimitError (src/scm) carries the reset; read by shape, the server does not import adapters.
  const reset = (error as { resetAt?: unknown }).resetAt;
  const resetAt = reset instanceof Date ? reset.getTime() : 0;
  return Math.max(now + wait, resetAt);
}

function keyOf(repoId: number, commit: string, context: string): string {
  return `${repoId}\n${commit}\n${context}`;
}
