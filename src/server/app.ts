import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Logger } from 'pino';
import { closeConnectionsAfterAnswers } from './graceful-close.js';
import { handleError, handleNotFound } from './http-errors.js';
import { healthRoute, type HealthDeps } from './routes/health.js';
import { versionRoute } from './routes/version.js';
import { registerRateLimits } from './rate-limits.js';

/** Everything the HTTP server needs, grouped; built by the `svc server` composition root. */
export interface AppDeps {
  readonly logger: Logger;
  readonly version: string;
  readonly schemaVersion: number;
  readonly health: HealthDeps;
  /**
   * SVC_SERVER_TRUSTED_PROXIES: only requests from these addresses have X-Forwarded-For honoured
   * (request.ip becomes the client behind them); empty or absent: never.
   */
  readonly trustedProxies?: readonly string[];
  /** PEM certificate chain and key; plain HTTP when absent. */
  readonly tls?: { cert: Buffer; key: Buffer } | undefined;
}

/** Builds the server's HTTP application. Routes of later parts are registered here. */
export function buildApp(deps: AppDeps): FastifyInstance {
  const options: FastifyServerOptions & { https?: { cert: Buffer; key: Buffer } } = {
    loggerInstance: deps.logger,
    // Runners long-poll all day: a log line per request would drown everything else.
    logController: new LogController({ disableRequestLogging: true }),
    // A slow or stuck client must not hold a connection forever.
    requestTimeout: 60_000,
    bodyLimit: 10 * 1024 * 1024,
    return503OnClosing: true,
    trustProxy:
      deps.trustedProxies === undefined || deps.trustedProxies.length === 0
        ? false
        : [...deps.trustedProxies],
  };
  if (deps.tls) options.https = deps.tls;
  const app = Fastify(options) as unknown as FastifyInstance;
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  securityHeaders(app, deps.tls !== undefined);
  closeConnectionsAfterAnswers(app);
  registerRateLimits(app);
  healthRoute(app, deps.health);
  versionRoute(app, { version: deps.version, schemaVersion: deps.schemaVersion });
  return app;
}

/**
 * Headers every answer carries, pages, API and errors alike: no MIME sniffing, no framing by other
 * sites (clickjacking), no full URLs to other origins, and over HTTPS, HTTPS only from then on.
 * The UI's page adds its Content-Security-Policy (web/spa.ts).
 */
function securityHeaders(app: FastifyInstance, https: boolean): void {
  app.addHook('onRequest', (_request, reply, done) => {
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('x-frame-options', 'DENY');
    void reply.header('referrer-policy', 'same-origin');
    if (https) void reply.header('strict-transport-security', 'max-age=31536000');
    done();
  });
}
