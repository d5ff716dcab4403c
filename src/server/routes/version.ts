import type { FastifyInstance } from 'fastify';

/** GET /version: the svc version and the schema version its database is at. */
export function versionRoute(app: FastifyInstance, info: { version: string; schemaVersion: number }): void {
  const body = { version: info.version, schema: info.schemaVersion };
  app.get('/version', () => body);
}
