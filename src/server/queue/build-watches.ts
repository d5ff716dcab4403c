import type { Build, BuildStore } from '../../core/build.js';
import { NotFoundError } from '../../core/errors.js';
import { isDone } from '../../core/status.js';
import { Wakeups } from './wakeups.js';

/** What build watches need. */
export interface BuildWatchesOptions {
  builds: Pick<BuildStore, 'find'>;
  /** How often a watch reads the build without being notified (a cancel on another replica). */
  recheck?: number;
}

/**
 * Runners watching their build for cancellation. A watch ends as soon as the build is done —
 * cancelled (`killed`), or ended while this runner still runs a stage of it — which the runner
 * takes as "stop". `notify(buildId)` makes watches look at once: the scheduler calls it on every
 * build change, and so must whatever cancels builds; otherwise they look every `recheck`.
 */
export class BuildWatches {
  readonly #builds: Pick<BuildStore, 'find'>;
  readonly #recheck: number;
  readonly #wakeups = new Wakeups<number>();

  constructor(options: BuildWatchesOptions) {
    this.#builds = options.builds;
    this.#recheck = options.recheck ?? 5_000;
  }

  /** The build changed: its watches read it again now. */
  notify(buildId: number): void {
    this.#wakeups.wake(buildId);
  }

  /**
   * Waits up to `ms` for the build to be done and returns it; undefined when the time ran out or
   * `signal` aborted first. NotFoundError for an unknown build.
   */
  async wait(buildId: number, ms: number, signal: AbortSignal): Promise<Build | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const build = await this.#builds.find(buildId);
      if (build === undefined) throw new NotFoundError(`build ${buildId}`);
      if (isDone(build.status)) return build;
      const left = deadline - Date.now();
      if (left <= 0 || signal.aborted) return undefined;
      await this.#wakeups.sleep(buildId, Math.min(left, this.#recheck), signal);
    }
  }
}
