import type { Build } from './build.js';
import type { Repo } from './repo.js';
import type { Stage } from './stage.js';

/**
 * Told whenever a build or one of its stages changes status (created, queued, running, done).
 * Implementations report commit status to the git provider, deliver global webhooks, …
 * A listener that throws must not break the caller: callers log the error and go on.
 */
export interface BuildListener {
  buildUpdated(change: { repo: Repo; build: Build; stages: Stage[] }): Promise<void>;
}

/**
 * Wakes the runners waiting for work. The queue itself lives in the database; this signal only makes
 * a new stage reach a long-polling runner at once instead of at its next poll.
 */
export interface QueueSignal {
  wake(): void;
}
