import type { Logger } from 'pino';
import type { BuildStore } from '../../core/build.js';
import type { BuildListener } from '../../core/events.js';
import type { ClusterChannel } from '../../core/cluster.js';
import type { RepoStore } from '../../core/repo.js';
import type { StageStore } from '../../core/stage.js';
import type { BuildEventHub } from '../events/build-events.js';
import type { BuildWatches } from '../queue/build-watches.js';

/** What the relay between this server and the others of its database needs. */
export interface ClusterRelayOptions {
  channel: ClusterChannel;
  store: {
    builds: Pick<BuildStore, 'find'>;
    stages: Pick<StageStore, 'list'>;
    repos: Pick<RepoStore, 'find'>;
  };
  /** Runners' requests waiting on this server: they look at the queue again. */
  queue: { heard(): void };
  /** Runners watching builds on this server for cancellation. */
  watches: Pick<BuildWatches, 'notify'>;
  /** The API's event streams open on this server. */
  events: Pick<BuildEventHub, 'size' | 'buildUpdated'>;
  logger: Logger;
}

/**
 * Build changes between the servers of one database (docs/ha.md). `announcer` is a BuildListener
 * that tells the other servers of every build change made here; `start` makes this server act on
 * theirs: its runners' cancel watches look again at once, and its event streams get the change as
 * the database now has it (read only while a stream is open). Queue signals wake this server's
 * waiting runners. Live logs have their own relay (ClusterLiveLogs).
 */
export class ClusterRelay {
  readonly #options: ClusterRelayOptions;

  constructor(options: ClusterRelayOptions) {
    this.#options = options;
  }

  /** Tells the other servers of every build change made on this one. */
  get announcer(): BuildListener {
    return {
      buildUpdated: ({ build }) => {
        this.#options.channel.send({ kind: 'build', build: build.id });
        return Promise.resolve();
      },
    };
  }

  /** Hears the other servers until the returned function is called. */
  start(): () => void {
    const { channel, queue, watches } = this.#options;
    return channel.listen((signal) => {
      if (signal.kind === 'queue') queue.heard();
      else if (signal.kind === 'build') {
        watches.notify(signal.build);
        void this.#stream(signal.build);
      }
    });
  }

  async #stream(buildId: number): Promise<void> {
    const { store, events, logger } = this.#options;
    if (events.size === 0) return;
    try {
      const build = await store.builds.find(buildId);
      const repo = build === undefined ? undefined : await store.repos.find(build.repoId);
      if (build === undefined || repo === undefined) return;
      await events.buildUpdated({ repo, build, stages: await store.stages.list(build.id) });
    } catch (error) {
      logger.warn({ err: error, build: buildId }, 'event streams: reading a build changed elsewhere failed');
    }
  }
}
