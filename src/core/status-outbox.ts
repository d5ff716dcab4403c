import type { ScmStatus } from './scm.js';

/** A commit status svc could not post yet, waiting in the outbox for its next attempt. */
export interface PendingStatus {
  readonly id: number;
  readonly repoId: number;
  /** The build the status describes (its page is the status's link). */
  readonly buildId: number;
  readonly commit: string;
  readonly status: ScmStatus;
  /** Attempts made so far, the reporter's own included. */
  readonly attempts: number;
  /** When the next attempt is due (epoch ms). */
  readonly nextAttempt: number;
  /** Why the last attempt failed, for the log. */
  readonly lastError: string;
  /** When the status was first kept (epoch ms): entries too old to matter expire. */
  readonly created: number;
}

/** A status to keep: the entry's fields svc chooses, the id and creation time are the store's. */
export type NewPendingStatus = Omit<PendingStatus, 'id' | 'created'>;

/**
 * Persistence of the commit statuses waiting to be posted (the "outbox"), so that a status the
 * provider did not take survives a server restart. At most one entry per repository, commit and
 * status context, because only the newest state of a context matters at the provider.
 * - `put` keeps `entry`, replacing any entry of the same repository, commit and context (a newer
 *   state supersedes an unsent older one); the replacement has a new id. NotFoundError when the
 *   repository or build does not exist.
 * - `due` returns up to `limit` entries whose next attempt is due at `now`, the earliest due first.
 * - `retryLater` records a failed attempt of entry `id`: one more attempt, the next one at
 *   `nextAttempt`, and the error; nothing when the entry is gone (superseded or removed meanwhile).
 * - `remove` deletes entry `id` (posted, or given up); none is not an error.
 * - `removeFor` deletes the entry of that repository, commit and context (a newer state was posted
 *   directly, so the older one must never be posted after it).
 * - `expire` deletes the entries created before `before`, returning how many.
 * - `list` returns every entry, oldest first (administration and tests).
 */
export interface StatusOutboxStore {
  put(entry: NewPendingStatus, now: number): Promise<void>;
  due(now: number, limit: number): Promise<PendingStatus[]>;
  retryLater(id: number, nextAttempt: number, lastError: string): Promise<void>;
  remove(id: number): Promise<void>;
  removeFor(repoId: number, commit: string, context: string): Promise<void>;
  expire(before: number): Promise<number>;
  list(): Promise<PendingStatus[]>;
}
