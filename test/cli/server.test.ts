import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiToken } from '../../src/server/auth/api-token.js';
import { openStore } from '../../src/store/index.js';
import { datasourceSetting, testDialects, type TestDatabase } from '../support/databases.js';
import { certificate, certificateAuthority } from '../support/certificates.js';
import { startS3 } from '../support/s3.js';
import { markSchemaVersion } from '../support/schema-version.js';
import { finished, listeningUrl, runSvc, startSvc } from '../support/svc-process.js';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'svc-server-'));
const running: ReturnType<typeof startSvc>[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Starts the server, waits until it listens, and returns its URL and a way to stop it gracefully. */
async function startServer(cwd: string, env: Record<string, string>, args = ['server']) {
  const child = startSvc(args, { cwd, env: { SVC_SERVER_PORT: '127.0.0.1:0', ...env } });
  running.push(child);
  const done = finished(child);
  const url = await listeningUrl(child);
  const stop = async () => {
    child.kill('SIGTERM');
    return done;
  };
  return { url, stop };
}

describe('svc --help', () => {
  it('lists the subcommands', async () => {
    const result = await runSvc(['--help'], { cwd: tempDir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\s+server\b/m);
    expect(result.stdout).toMatch(/^\s+config print <kind>/m);
  });

  it('rejects an unknown command with exit 2', async () => {
    const result = await runSvc(['frobnicate'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "frobnicate"');
  });
});

describe('svc server --local (what npm start runs)', () => {
  it('starts on the embedded database, answers /healthz and /version, and stops on SIGTERM', async () => {
    const cwd = tempDir();
    // The configuration languages start with the server (the Starlark worker only on first use).
    const server = await startServer(cwd, { SVC_TMPLJSON_ENABLED: 'true', SVC_TMPLSCRIPT_ENABLED: 'true' }, [
      'server',
      '--local',
    ]);

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toBe('ok\n');
    const version = (await (await fetch(`${server.url}/version`)).json()) as {
      version: string;
      schema: number;
    };
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(version.version).toBe(manifest.version);
    expect(version.schema).toBeGreaterThan(0);
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);

    const exit = await server.stop();
    expect(exit.code).toBe(0);
    expect(existsSync(join(cwd, 'data', 'svc.sqlite'))).toBe(true);
    expect(readFileSync(join(cwd, 'data', 'rpc-secret'), 'utf8')).toMatch(/^[0-9a-f]{32}\n$/);
    expect(exit.stderr).not.toMatch(/\n\s+at /); // no stack traces
    expect(exit.stderr).not.toMatch(/not supported|no effect/);
    expect(exit.stderr).not.toContain('SVC_TLS_AUTOCERT');
    // The secret npm start makes is long enough.
    expect(`${exit.stdout}${exit.stderr}`).not.toContain('SVC_RPC_SECRET has');
  });
});

describe('svc server metrics', () => {
  it('serves Prometheus gauges to administrators, or to anyone with SVC_METRICS_ANONYMOUS_ACCESS', async () => {
    const token = randomBytes(16).toString('hex');
    const server = await startServer(
      tempDir(),
      { SVC_USER_CREATE: `username:ops,machine:true,admin:true,token:${token}` },
      ['server', '--local'],
    );
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toContain('# TYPE svc_user_count gauge\nsvc_user_count 1\n');
    expect(text).toContain('svc_pending_builds 0\n');
    await server.stop();

    const open = await startServer(tempDir(), { SVC_METRICS_ANONYMOUS_ACCESS: 'true' }, [
      'server',
      '--local',
    ]);
    const anonymous = await fetch(`${open.url}/metrics`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toContain('svc_user_count 0\n');
    await open.stop();
  });
});

describe('svc server settings', () => {
  it('reports every missing required setting at once and exits 2', async () => {
    const result = await runSvc(['server'], { cwd: tempDir() });
    expect(result.code).toBe(2);
    for (const name of ['SVC_SERVER_HOST', 'SVC_SERVER_PROTO', 'SVC_RPC_SECRET']) {
      expect(result.stderr).toMatch(new RegExp(`^${name}: `, 'm'));
    }
  });
});

const REQUIRED = {
  SVC_SERVER_HOST: 'ci.example.com',
  SVC_SERVER_PROTO: 'https',
  SVC_RPC_SECRET: 'rpc-secret-for-tests',
};
const DRIVERS = { SQLite: 'embedded_sql', MariaDB: 'sql_a', PostgreSQL: 'sql_b' } as const;

describe.each(testDialects())('svc server on $name', (dialect) => {
  let database: TestDatabase | undefined;
  afterEach(async () => database?.drop());

  it.skipIf(dialect.skip)('migrates, seeds the SVC_USER_CREATE machine account, and serves', async () => {
    database = await dialect.create();
    const token = randomBytes(16).toString('hex');
    const server = await startServer(tempDir(), {
      ...REQUIRED,
      SVC_DATABASE_DRIVER: DRIVERS[dialect.name],
      SVC_DATABASE_DATASOURCE: datasourceSetting(database.datasource),
      SVC_USER_CREATE: `username:robot,machine:true,admin:true,token:${token}`,
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const exit = await server.stop();
    expect(exit.code).toBe(0);
    // REQUIRED's secret has 20 characters: too few to start without a word about it.
    expect(`${exit.stdout}${exit.stderr}`).toContain(
      'SVC_RPC_SECRET has 20 characters: whoever guesses it can take builds',
    );

    const store = await openStore({ datasource: database.datasource });
    try {
      // The token of the setting works; only its hash is stored.
      expect(await store.users.findLogin('robot')).toMatchObject({
        machine: true,
        admin: true,
        tokenHash: hashApiToken(token),
      });
    } finally {
      await store.close();
    }
  });

  it.skipIf(dialect.skip)('refuses a database written by a newer svc, with a clear message', async () => {
    database = await dialect.create();
    const env = {
      ...REQUIRED,
      SVC_DATABASE_DRIVER: DRIVERS[dialect.name],
      SVC_DATABASE_DATASOURCE: datasourceSetting(database.datasource),
    };
    const store = await openStore({ datasource: database.datasource });
    const newer = store.schemaVersion + 1;
    await store.close();
    await markSchemaVersion(database.datasource, newer);

    const result = await runSvc(['server'], { cwd: tempDir(), env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`version ${newer}`);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('svc server on SQLite: one server per database file', () => {
  it('refuses a second server on the same file, saying what to do, and starts again once the first stopped', async () => {
    const cwd = tempDir();
    const env = { SVC_DATABASE_DATASOURCE: join(cwd, 'data', 'svc.sqlite') };
    const first = await startServer(cwd, env, ['server', '--local']);
    const second = await runSvc(['server', '--local'], {
      cwd,
      env: { ...env, SVC_SERVER_PORT: '127.0.0.1:0' },
    });
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /^SVC_DATABASE_DATASOURCE: another svc server already uses the SQLite database .*svc\.sqlite .*use PostgreSQL or MySQL/m,
    );
    expect((await first.stop()).code).toBe(0);
    // The claim ends with the process, however it ends: a new server starts.
    const again = await startServer(cwd, env, ['server', '--local']);
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    await again.stop();
  });
});

describe('svc server with SVC_TLS_CERT and SVC_TLS_KEY', () => {
  /** A server on HTTPS with cert.pem and key.pem of `cwd`. */
  const tlsSettings = (cwd: string): Record<string, string> => ({
    SVC_SERVER_HOST: 'ci.example.com',
    SVC_SERVER_PROTO: 'https',
    SVC_RPC_SECRET: 'tls-test-secret',
    SVC_DATABASE_DATASOURCE: join(cwd, 'svc.sqlite'),
    SVC_TLS_CERT: 'cert.pem',
    SVC_TLS_KEY: 'key.pem',
  });

  /** The certificate the server at `url` presents, trusting `ca`: its SHA-256 fingerprint, and the body of /healthz. */
  function presented(url: string, ca: string): Promise<{ fingerprint: string; body: string }> {
    return new Promise((resolve, reject) => {
      // A connection of its own each time: a kept-alive one would show the certificate of its handshake.
      const request = httpsGet(`${url}/healthz`, { ca, agent: false }, (response) => {
        const fingerprint = (response.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ fingerprint, body }));
      });
      request.on('error', reject);
    });
  }

  it('serves the chain as given over HTTPS, and a renewal of the files without a restart', async () => {
    const cwd = tempDir();
    const ca = certificateAuthority();
    const first = certificate({ ca });
    writeFileSync(join(cwd, 'cert.pem'), first.cert);
    writeFileSync(join(cwd, 'key.pem'), first.key);
    const server = await startServer(cwd, tlsSettings(cwd));
    expect(server.url).toMatch(/^https:\/\//);
    const before = await presented(server.url, ca.cert);
    expect(before).toEqual({ fingerprint: new X509Certificate(first.cert).fingerprint256, body: 'ok\n' });
    const renewed = certificate({ ca });
    writeFileSync(join(cwd, 'key.pem'), renewed.key);
    writeFileSync(join(cwd, 'cert.pem'), renewed.cert);
    const expected = new X509Certificate(renewed.cert).fingerprint256;
    let now = before;
    for (let i = 0; i < 100 && now.fingerprint !== expected; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      now = await presented(server.url, ca.cert);
    }
    expect(now.fingerprint).toBe(expected);
    const stopped = await server.stop();
    expect(stopped.stderr).toMatch(/SVC_TLS_CERT: renewed; now serving CN=127\.0\.0\.1/);
  });

  it('does not start with an expired certificate, saying which file', async () => {
    const cwd = tempDir();
    const expired = certificate({ days: -1 });
    writeFileSync(join(cwd, 'cert.pem'), expired.cert);
    writeFileSync(join(cwd, 'key.pem'), expired.key);
    const result = await runSvc(['server'], { cwd, env: tlsSettings(cwd) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `^SVC_TLS_CERT: the certificate in ${join(cwd, 'cert.pem')} \\(CN=127\\.0\\.0\\.1\\) expired on `,
      ),
    );
  });
});

describe('svc server with SVC_OBJSTORE_BUCKET', () => {
  it('does not start with a bucket it cannot use, naming the bucket and the endpoint', async () => {
    const s3 = await startS3(['build-logs']);
    try {
      const cwd = tempDir();
      const result = await runSvc(['server'], {
        cwd,
        env: {
          SVC_SERVER_HOST: 'ci.example.com',
          SVC_SERVER_PROTO: 'http',
          SVC_SERVER_PORT: '127.0.0.1:0',
          SVC_RPC_SECRET: 'objstore-test-secret',
          SVC_DATABASE_DATASOURCE: join(cwd, 'svc.sqlite'),
          SVC_OBJSTORE_BUCKET: 'no-such-bucket',
          SVC_OBJSTORE_ENDPOINT: s3.endpoint,
          SVC_OBJSTORE_PATH_STYLE: 'true',
          AWS_ACCESS_KEY_ID: 'S3RVER',
          AWS_SECRET_ACCESS_KEY: 'S3RVER',
        },
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `SVC_OBJSTORE_BUCKET: cannot use the bucket "no-such-bucket" at ${s3.endpoint}: no such bucket`,
      );
    } finally {
      await s3.close();
    }
  });
});
