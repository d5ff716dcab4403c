import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { BuildListener } from '../../core/events.js';
import type { GaugeRegistry } from '../../core/gauges.js';
import type { LiveLogs } from '../../core/live-logs.js';
import type { Store } from '../../core/store.js';
import { ClusterLiveLogs } from '../../server/cluster/cluster-live-logs.js';
import { LeaseKeeper, type Leadership } from '../../server/cluster/lease-keeper.js';
import { ClusterRelay } from '../../server/cluster/relay.js';
import type { BuildEventHub } from '../../server/events/build-events.js';
import { InMemoryLiveLogs } from '../../server/logs/index.js';
import type { BuildWatches, StageQueue } from '../../server/queue/index.js';

/** The lease of the jobs one server of the database runs: heartbeat watchdog, reaper, cron. */
const JOBS_LEASE = 'jobs';

/**
 * What a server shares with the others of its database (docs/ha.md), or, on SQLite, the plain
 * one-server parts: the live-log fan-out, the queue's announcement, the jobs' lease, and — once the
 * queue, the watches and the event streams exist — the relay of build changes.
 */
export interface ClusterParts {
  readonly liveLogs: LiveLogs;
  /** StageQueue's `announce`: undefined with one server. */
  readonly announceQueue: (() => void) | undefined;
  /** Undefined with one server, which runs every job. */
  readonly leader: Leadership | undefined;
  /** Relays build changes both ways and runs the lease while `app` is up; returns the listener to add. */
  attach(
    app: FastifyInstance,
    parts: { queue: StageQueue; watches: BuildWatches; events: BuildEventHub },
  ): BuildListener | undefined;
}

export function clusterParts(store: Store, logger: Logger, gauges: GaugeRegistry): ClusterParts {
  const channel = store.signals;
  // This server's own viewers of live logs, whether or not other servers share the database.
  const local = new InMemoryLiveLogs();
  gauges.add('live_logs', local);
  if (!channel.shared) {
    return {
      liveLogs: local,
      announceQueue: undefined,
      leader: undefined,
      attach: () => undefined,
    };
  }
  const liveLogs = new ClusterLiveLogs({
    local,
    channel,
    batches: store.logBatches,
    logger,
  });
  const keeper = new LeaseKeeper({
    leases: store.leases,
    name: JOBS_LEASE,
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    logger,
  });
  return {
    liveLogs,
    announceQueue: () => channel.send({ kind: 'queue' }),
    leader: keeper,
    attach(app, { queue, watches, events }) {
      const relay = new ClusterRelay({ channel, store, queue, watches, events, logger });
      let stop = (): void => undefined;
      app.addHook('onReady', async () => {
        stop = relay.start();
        await keeper.start();
      });
      app.addHook('onClose', async () => {
        stop();
        liveLogs.close();
        await keeper.stop();
      });
      return relay.announcer;
    },
  };
}
