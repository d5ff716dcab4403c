// Settings: SVC_TLS_AUTOCERT, SVC_TLS_ACME_DIRECTORY, SVC_TLS_ACME_EMAIL, SVC_SERVER_HOST, SVC_SERVER_PORT.
import type { X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { certificate, certificateAuthority } from '../support/certificates.js';
import { pebbleInstalled, startPebble, type Pebble } from '../support/pebble.js';
import { finished, listeningUrl, runSvc, startSvc } from '../support/svc-process.js';

const HOST = 'ci.svc.test';
// The CA validates HTTP-01 on port 80, where svc answers: the test binds it (CI runs as root).
const CAN_BIND_80 = process.getuid?.() === 0;
const run = (pebbleInstalled() && CAN_BIND_80) || process.env.CI === 'true';
const running: ReturnType<typeof startSvc>[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe.runIf(run)('svc server with SVC_TLS_AUTOCERT, against the pebble ACME CA', () => {
  let pebble: Pebble;
  beforeAll(async () => {
    pebble = await startPebble(80);
  }, 30_000);
  afterAll(() => pebble.stop());

  const settings = (cwd: string, directory = pebble.directoryUrl): Record<string, string> => ({
    SVC_SERVER_HOST: HOST,
    SVC_SERVER_PROTO: 'https',
    SVC_SERVER_PORT: '127.0.0.1:0',
    SVC_RPC_SECRET: 'autocert-test-secret',
    SVC_DATABASE_DATASOURCE: join(cwd, 'data', 'svc.sqlite'),
    SVC_TLS_AUTOCERT: 'true',
    SVC_TLS_ACME_DIRECTORY: directory,
    SVC_TLS_ACME_EMAIL: 'ops@svc.test',
    // pebble's API has a certificate of the test's own; Let's Encrypt's needs nothing.
    NODE_EXTRA_CA_CERTS: pebble.apiCaFile,
  });

  async function start(cwd: string) {
    const child = startSvc(['server'], { cwd, env: settings(cwd) });
    running.push(child);
    const done = finished(child);
    const url = await listeningUrl(child, 60_000);
    return {
      port: Number(new URL(url).port),
      stop: () => {
        child.kill('SIGTERM');
        return done;
      },
    };
  }

  /** The certificate served for HOST on `port`, verified against pebble's root, and /healthz. */
  async function served(port: number): Promise<{ cert: X509Certificate; body: string }> {
    const root = await pebble.root();
    return new Promise((resolve, reject) => {
      const options = { host: '127.0.0.1', port, path: '/healthz', servername: HOST, ca: root, agent: false };
      const request = httpsGet({ ...options, headers: { host: HOST } }, (response) => {
        const raw = (response.socket as TLSSocket).getPeerX509Certificate();
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => (raw ? resolve({ cert: raw, body }) : reject(new Error('no certificate'))));
      });
      request.on('error', reject);
    });
  }

  function plainGet(path: string): Promise<{ status: number; location: string | undefined }> {
    return new Promise((resolve, reject) => {
      const request = httpGet({ host: '127.0.0.1', port: 80, path, headers: { host: HOST } }, (response) => {
        response.resume();
        resolve({ status: response.statusCode ?? 0, location: response.headers.location });
      });
      request.on('error', reject);
    });
  }

  it('obtains a certificate with HTTP-01, serves HTTPS with it, redirects HTTP, and keeps it across a restart', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-autocert-'));
    const first = await start(cwd);
    const { cert, body } = await served(first.port);
    expect(body).toBe('ok\n');
    expect(cert.subjectAltName).toBe(`DNS:${HOST}`);
    expect(cert.issuer).toMatch(/Pebble Intermediate/);
    expect(await plainGet('/octo/hello/3?x=1')).toEqual({
      status: 301,
      location: `https://${HOST}/octo/hello/3?x=1`,
    });
    expect((await plainGet('/.well-known/acme-challenge/unknown')).status).toBe(404);
    expect(statSync(join(cwd, 'data', 'acme', `${HOST}.key`)).mode & 0o777).toBe(0o600);
    expect(statSync(join(cwd, 'data', 'acme', 'account.key')).mode & 0o777).toBe(0o600);
    const stopped = await first.stop();
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toContain(
      `SVC_TLS_AUTOCERT: ordering a certificate for ${HOST} from ${pebble.directoryUrl}`,
    );

    const again = await start(cwd);
    expect((await served(again.port)).cert.fingerprint256).toBe(cert.fingerprint256);
    const log = (await again.stop()).stderr;
    expect(log).toContain(`SVC_TLS_AUTOCERT: serving the stored certificate for ${HOST}`);
    expect(log).not.toContain('ordering');
  }, 120_000);

  it('renews a stored certificate due within 30 days while serving it', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-autocert-'));
    const old = certificate({ ca: certificateAuthority(), cn: HOST, days: 10 });
    mkdirSync(join(cwd, 'data', 'acme'), { recursive: true });
    writeFileSync(join(cwd, 'data', 'acme', `${HOST}.crt`), old.cert);
    writeFileSync(join(cwd, 'data', 'acme', `${HOST}.key`), old.key, { mode: 0o600 });
    const server = await start(cwd);
    let renewed: X509Certificate | undefined;
    for (let i = 0; i < 120 && renewed === undefined; i++) {
      renewed = await served(server.port).then(
        (answer) => answer.cert,
        () => undefined, // still the old certificate, which pebble's root does not sign
      );
      if (renewed === undefined) await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(renewed?.issuer).toMatch(/Pebble Intermediate/);
    expect(new Date(renewed?.validTo ?? 0).getTime() - Date.now()).toBeGreaterThan(30 * 86_400_000);
    const log = (await server.stop()).stderr;
    expect(log).toMatch(
      new RegExp(`SVC_TLS_AUTOCERT: renewed; now serving CN=${HOST.replace(/\./g, '\\.')}`),
    );
  }, 120_000);

  it('does not start without a certificate, naming the CA and its reason', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-autocert-'));
    const result = await runSvc(['server'], { cwd, env: settings(cwd, 'https://localhost:1/dir') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^SVC_TLS_AUTOCERT: no certificate for ${HOST.replace(/\./g, '\\.')} from https://localhost:1/dir: `,
        'm',
      ),
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
