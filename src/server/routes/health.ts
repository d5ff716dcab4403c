import type { FastifyInstance } from 'fastify';

/** What the health route needs: a cheap check that the database answers. */
export interface HealthDeps {
  ping(): Promise<void>;
}

/**
 * GET /healthz: 200 `ok` when the server can reach its database, 503 otherwise, so that load
 * balancers and orchestrators take a server whose database is gone out of rotation.
 */
export function healthRoute(app: FastifyInstance, deps: HealthDeps): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await deps.ping();
    } catch (error) {
      request.log.warn({ err: error }, 'health check: database unreachable');
      return reply.status(503).type('text/plain; charset=utf-8').send('database unreachable\n');
    }
    return reply.type('text/plain; charset=utf-8').send('ok\n');
  });
}
