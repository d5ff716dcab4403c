/*
 * A real svc webhook endpoint for any git provider: fastify, the provider's adapter, the trigger and
 * the delivery store over a real database, wired as `svc server` wires them (src/cli/server/wire.ts),
 * without login or API. Several may share one database, as several servers do.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { ScmProvider } from '../../../src/core/scm.js';
import type { Store } from '../../../src/core/store.js';
import { buildApp } from '../../../src/server/app.js';
import { hookRoute } from '../../../src/server/hook/index.js';
import { Trigger } from '../../../src/server/trigger/index.js';

export interface HookServer {
  /** Where the provider delivers: http://127.0.0.1:PORT/hook. */
  readonly hookUrl: string;
  close(): Promise<void>;
}

/** Starts an svc webhook endpoint over `store` for `provider`; `trigger` may wrap the real trigger. */
export async function startHookServer(
  store: Store,
  provider: ScmProvider,
  wrap: (trigger: Pick<Trigger, 'trigger'>) => Pick<Trigger, 'trigger'> = (trigger) => trigger,
): Promise<HookServer> {
  const logger = pino({ level: 'silent' });
  const app = buildApp({ logger, version: '0.0.0-test', schemaVersion: store.schemaVersion, health: store });
  const trigger = new Trigger({
    store,
    provider,
    queue: { wake: () => undefined },
    listener: { buildUpdated: () => Promise.resolve() },
    system: { proto: 'http', host: '127.0.0.1', version: '0.0.0-test' },
    logger,
  });
  hookRoute(app, { repos: store.repos, provider, trigger: wrap(trigger), deliveries: store.hookDeliveries });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { hookUrl: `http://127.0.0.1:${port}/hook`, close: () => app.close() };
}

/** One webhook request as it went over the wire. */
export interface Captured {
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Someone between the provider and svc who keeps a copy of every delivery (a proxy's log, a leaked
 * capture): deliveries to `url` are recorded and, unless `hold` is set, passed on to `target`.
 */
export interface Eavesdropper {
  readonly url: string;
  readonly captured: Captured[];
  /** While true, deliveries are recorded and answered 202 but not passed on. */
  hold: boolean;
  close(): Promise<void>;
}

export async function startEavesdropper(target: string): Promise<Eavesdropper> {
  const captured: Captured[] = [];
  const spy = { hold: false };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const copy = { headers: flat(request.headers), body: Buffer.concat(chunks) };
      captured.push(copy);
      if (spy.hold) {
        response.writeHead(202).end();
        return;
      }
      send(target, copy).then(
        (answer) => response.writeHead(answer.status).end(answer.text),
        () => response.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(spy, {
    url: `http://127.0.0.1:${port}/hook`,
    captured,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** Sends a (captured, maybe altered) delivery to `url` as it was; svc's status and answer. */
export async function send(url: string, delivery: Captured): Promise<{ status: number; text: string }> {
  const { host: _host, connection: _connection, 'content-length': _length, ...headers } = delivery.headers;
  const response = await fetch(url, { method: 'POST', headers, body: delivery.body });
  return { status: response.status, text: await response.text() };
}

function flat(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
