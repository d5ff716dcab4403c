import type { Build } from './build.js';
import type { Repo } from './repo.js';
import type { Stage } from './stage.js';
import type { User } from './user.js';

/**
 * Told whenever a build or one of its stages changes status (created, queued, running, done).
 * Implementations report commit status to the git provider, deliver global webhooks, …
 * A listener that throws must not break the caller: callers log the error and go on.
 */
export interface BuildListener {
  /** `created` is true once, when the build was just created (queued or blocked). */
  buildUpdated(change: { repo: Repo; build: Build; stages: Stage[]; created?: boolean }): Promise<void>;
}

/** A change of a user or a repository that global webhook receivers hear of (build changes: BuildListener). */
export type SystemEvent =
  | { kind: 'user'; action: 'created' | 'updated' | 'deleted'; user: User }
  | { kind: 'repo'; action: 'enabled' | 'disabled' | 'updated'; repo: Repo };

/** Told of user and repository changes; never throws and never makes the caller wait. */
export interface SystemEvents {
  emit(event: SystemEvent): void;
}

/**
 * Wakes the runners waiting for work. The queue itself lives in the database; this signal only makes
 * a new stage reach a long-polling runner at once instead of at its next poll.
 */
export interface QueueSignal {
  wake(): void;
}
