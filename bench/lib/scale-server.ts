/* A real `svc server` on a benchmark's seeded database, and timed API reads from it. */
import type { Datasource } from '../../src/core/datasource.js';
import { datasourceSetting } from '../../test/support/databases.js';
import { freePort, RPC_SECRET, startServer, type SvcProcess } from '../../test/e2e/system.js';

/**
 * `svc server` on the datasource's database, as users start it, with `env` on top; no git provider
 * (API tokens only).
 */
export async function serveDatabase(
  datasource: Datasource,
  env: Record<string, string> = {},
): Promise<{ url: string; server: SvcProcess }> {
  const port = await freePort();
  const server = await startServer({
    SVC_SERVER_HOST: `127.0.0.1:${port}`,
    SVC_SERVER_PROTO: 'http',
    SVC_SERVER_PORT: `127.0.0.1:${port}`,
    SVC_RPC_SECRET: RPC_SECRET,
    SVC_DATABASE_DRIVER: datasource.driver,
    SVC_DATABASE_DATASOURCE: datasourceSetting(datasource),
    ...env,
  });
  return { url: `http://127.0.0.1:${port}`, server };
}

/** Milliseconds from sending the request until its whole body arrived; the body. Anything but 200 throws. */
export async function timedGet(url: string, token: string): Promise<{ ms: number; body: string }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200)
    throw new Error(`GET ${url} answered ${response.status}: ${body.slice(0, 300)}`);
  return { ms, body };
}
