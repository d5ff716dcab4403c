import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { RepoStore } from '../../core/repo.js';
import type { ScmProvider } from '../../core/scm.js';
import type { StatusOutboxStore } from '../../core/status-outbox.js';
import type { UserStore } from '../../core/user.js';
import type { Leadership } from '../cluster/lease-keeper.js';
import { StatusOutboxLoop } from './outbox-loop.js';
import { StatusPoster } from './poster.js';

/** What keeping and re-posting commit statuses needs from the server. */
export interface StatusOutboxWiring {
  readonly provider: Pick<ScmProvider, 'setStatus'>;
  readonly store: {
    readonly users: Pick<UserStore, 'find'>;
    readonly repos: Pick<RepoStore, 'find'>;
    readonly statusOutbox: StatusOutboxStore;
  };
  readonly logger: Logger;
  /** With several servers on one database, the lease that lets one of them run the loop. */
  readonly leader?: Leadership | undefined;
}

/**
 * The server's status poster, keeping failed statuses in the outbox, and the loop that posts them
 * later, running from when `app` is ready until it closes (a status kept before a restart is posted
 * after it).
 */
export function statusOutbox(
  app: FastifyInstance,
  { provider, store, logger, leader }: StatusOutboxWiring,
): StatusPoster {
  const poster = new StatusPoster({
    provider,
    users: store.users,
    keep: { outbox: store.statusOutbox, repos: store.repos },
    logger,
  });
  const loop = new StatusOutboxLoop({ outbox: store.statusOutbox, poster, logger, leader });
  app.addHook('onReady', (done) => {
    loop.start();
    done();
  });
  app.addHook('onClose', async () => {
    await loop.stop();
  });
  return poster;
}
