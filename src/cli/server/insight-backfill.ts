import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Store } from '../../core/store.js';
import type { Leadership } from '../../server/cluster/lease-keeper.js';
import { InsightBackfill } from '../../server/insights/backfill.js';
import { InsightRollup } from '../../server/insights/rollup.js';

/** Counts the builds the insight rollups miss, from when the server is ready until it closes. */
export function insightBackfill(
  app: FastifyInstance,
  store: Store,
  logger: Logger,
  leader: Leadership | undefined,
): void {
  const backfill = new InsightBackfill({
    store,
    rollup: new InsightRollup({ store, logger }),
    logger,
    leader,
  });
  app.addHook('onReady', (done) => {
    backfill.start();
    done();
  });
  app.addHook('onClose', async () => {
    await backfill.stop();
  });
}
