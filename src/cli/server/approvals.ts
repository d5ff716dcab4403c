import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ScmProvider } from '../../core/scm.js';
import type { Store } from '../../core/store.js';
import type { User } from '../../core/user.js';
import { scmTokenOf } from '../../server/auth/index.js';
import type { Leadership } from '../../server/cluster/lease-keeper.js';
import { ApprovalDesk } from '../../server/queue/approval-desk.js';
import { ApprovalSweeper } from '../../server/queue/approval-sweeper.js';
import type { BuildActions } from '../../server/queue/index.js';

/**
 * The approval desk (with the provider's teams where svc reads them) and the sweeper that declines
 * deployments waiting past their environment's timeout, on the lease holder only.
 */
export function approvals(
  app: FastifyInstance,
  store: Store,
  provider: ScmProvider | undefined,
  actions: BuildActions,
  logger: Logger,
  leader: Leadership | undefined,
): ApprovalDesk {
  const teams = provider?.teams?.bind(provider);
  const desk = new ApprovalDesk({
    store,
    actions,
    ...(teams === undefined ? {} : { teamsOf: (user: User) => teams(scmTokenOf(user)) }),
  });
  const sweeper = new ApprovalSweeper({ store, desk, logger, leader });
  app.addHook('onReady', (done) => {
    sweeper.start();
    done();
  });
  app.addHook('onClose', async () => {
    await sweeper.stop();
  });
  return desk;
}
