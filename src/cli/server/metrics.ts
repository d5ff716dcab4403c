import type { FastifyInstance } from 'fastify';
import type { Store } from '../../core/store.js';
import type { Authenticator } from '../../server/auth/index.js';
import { HeldEntries } from '../../platform/metrics/held-entries.js';
import { ProcessGauges } from '../../platform/metrics/process-gauges.js';
import { metricsRoute } from '../../server/routes/metrics.js';

/**
 * GET /metrics with the process's own gauges, recorded while the app is up; returns the registry
 * where the server's parts report the sizes of their in-memory maps.
 */
export function serverMetrics(
  app: FastifyInstance,
  deps: { auth: Authenticator; store: Store; anonymous: boolean },
): HeldEntries {
  const held = new HeldEntries();
  const process = new ProcessGauges();
  app.addHook('onReady', (done) => {
    process.start();
    done();
  });
  app.addHook('onClose', (_app, done) => {
    process.stop();
    done();
  });
  metricsRoute(app, { ...deps, process, held });
  return held;
}
