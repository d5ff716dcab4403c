import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../../platform/node-http.js';
import { authorized, dashboardPage, type DashboardOptions } from './dashboard.js';

/** The runner's own HTTP listener (SVC_HTTP_BIND, SVC_HTTP_HOST). */
export interface RunnerListenerOptions {
  host: string;
  port: number;
  /** SVC_HTTP_HOST: the host name requests must be addressed to; empty accepts any. */
  hostName: string;
  /** What the health check reports. */
  status(): { running: number; capacity: number };
  /** The dashboard at `/`, behind basic authentication; absent when disabled (SVC_UI_*). */
  dashboard?: DashboardOptions | undefined;
}

/** A listening runner listener. */
export interface RunnerListener {
  /** The port it listens on (the one the system chose for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /healthz` — 200 `ok` with the stages running, for orchestrators' probes — and, when
 * enabled, the dashboard at `GET /` behind basic authentication; anything else is 404. With
 * SVC_HTTP_HOST set, requests for another host name get 421.
 */
export async function startRunnerListener(options: RunnerListenerOptions): Promise<RunnerListener> {
  const server = http.createServer((request, response) => handle(options, request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : options.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function handle(options: RunnerListenerOptions, request: IncomingMessage, response: ServerResponse): void {
  const text = (status: number, body: string): void => {
    response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(body);
  };
  const host = (request.headers.host ?? '').replace(/:\d+$/, '');
  if (options.hostName !== '' && host !== options.hostName)
    return text(421, `this runner answers to ${options.hostName}\n`);
  const path = (request.url ?? '').split('?')[0];
  if (request.method === 'GET' && path === '/healthz') {
    const { running, capacity } = options.status();
    return text(200, `ok\nstages running: ${running} of ${capacity}\n`);
  }
  const dashboard = options.dashboard;
  if (request.method === 'GET' && path === '/' && dashboard !== undefined) {
    if (!authorized(request.headers.authorization, dashboard)) {
      response.writeHead(401, {
        'Content-Type': 'text/plain; charset=utf-8',
        'WWW-Authenticate': `Basic realm="${dashboard.realm.replace(/["\\]/g, '')}", charset="UTF-8"`,
      });
      response.end('the dashboard needs the user name and password of SVC_UI_USERNAME and SVC_UI_PASSWORD\n');
      return;
    }
    const page = dashboardPage(dashboard, options.status().capacity, Date.now());
    response
      .writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
      .end(page);
    return;
  }
  return text(404, 'not found\n');
}
