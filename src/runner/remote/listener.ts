import type { IncomingMessage, ServerResponse } from 'node:http';
import { http } from '../../platform/node-http.js';
import type { HeldEntries } from '../../platform/metrics/held-entries.js';
import type { ProcessGauges } from '../../platform/metrics/process-gauges.js';
import { processMetrics } from '../../platform/metrics/process-metrics.js';
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
  /** The process's gauges, at `/metrics` behind the dashboard's authentication (none without it). */
  metrics?: RunnerGauges | undefined;
}

/** What the runner's /metrics reads: its process, and the sizes of its in-memory maps. */
export interface RunnerGauges {
  readonly process: Pick<ProcessGauges, 'read' | 'collect'>;
  readonly held: Pick<HeldEntries, 'read'>;
}

/** A listening runner listener. */
export interface RunnerListener {
  /** The port it listens on (the one the system chose for port 0). */
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `GET /healthz` — 200 `ok` with the stages running, for orchestrators' probes — and, when
 * enabled, the dashboard at `GET /` and the process's gauges at `GET /metrics` (Prometheus' text
 * format; `?gc=full` collects garbage first), both behind basic authentication; anything else is
 * 404. With SVC_HTTP_HOST set, requests for another host name get 421.
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
  const page = request.method === 'GET' && dashboard !== undefined ? pageOf(path, options) : undefined;
  if (page === undefined || dashboard === undefined) return text(404, 'not found\n');
  if (!authorized(request.headers.authorization, dashboard)) {
    response.writeHead(401, {
      'Content-Type': 'text/plain; charset=utf-8',
      'WWW-Authenticate': `Basic realm="${dashboard.realm.replace(/["\\]/g, '')}", charset="UTF-8"`,
    });
    response.end('the dashboard needs the user name and password of SVC_UI_USERNAME and SVC_UI_PASSWORD\n');
    return;
  }
  const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
  const served = page(query);
  if (typeof served === 'string') return text(400, served);
  response.writeHead(200, { 'Content-Type': served.type, 'Cache-Control': 'no-store' }).end(served.body);
}

type Page = (query: URLSearchParams) => { type: string; body: string } | string;

/** The authenticated page at `path`: the dashboard, or the gauges; undefined for none. */
function pageOf(path: string | undefined, options: RunnerListenerOptions): Page | undefined {
  const { dashboard, metrics } = options;
  if (path === '/' && dashboard !== undefined) {
    return () => ({
      type: 'text/html; charset=utf-8',
      body: dashboardPage(dashboard, options.status().capacity, Date.now()),
    });
  }
  if (path === '/metrics' && metrics !== undefined) {
    return (query) => {
      const gc = query.get('gc');
      if (gc !== null && gc !== 'full') return 'gc= takes one value: full\n';
      if (gc === 'full') metrics.process.collect();
      return {
        type: 'text/plain; version=0.0.4; charset=utf-8',
        body: processMetrics(metrics.process.read(), metrics.held.read()),
      };
    };
  }
  return undefined;
}
