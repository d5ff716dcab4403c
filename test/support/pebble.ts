import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { get } from 'node:https';
import { join } from 'node:path';
import { certificate } from './certificates.js';

/** A running pebble (Let's Encrypt's test CA) whose DNS answers 127.0.0.1 for every name. */
export interface Pebble {
  /** The ACME directory URL. */
  readonly directoryUrl: string;
  /** A file with the certificate of pebble's own API, for NODE_EXTRA_CA_CERTS. */
  readonly apiCaFile: string;
  /** The root that signs the certificates pebble issues (a new one each time pebble starts). */
  root(): Promise<string>;
  stop(): Promise<void>;
}

export const pebbleInstalled = (): boolean =>
  existsSync('/usr/bin/pebble') && existsSync('/usr/bin/pebble-challtestsrv');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts pebble-challtestsrv as the DNS server (every name is 127.0.0.1) and pebble, which checks
 * HTTP-01 challenges on `httpPort` of 127.0.0.1. Without the sleeps and nonce rejections pebble adds
 * to shake out clients, so a certificate takes seconds.
 */
export async function startPebble(httpPort: number): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pebble-'));
  const api = certificate({ cn: 'localhost', days: 2 });
  writeFileSync(join(dir, 'api.pem'), api.cert);
  writeFileSync(join(dir, 'api-key.pem'), api.key);
  const [acmePort, managementPort, dnsPort, challengeManagementPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: join(dir, 'api.pem'),
        privateKey: join(dir, 'api-key.pem'),
        httpPort,
        tlsPort: 5001,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const children: ChildProcess[] = [];
  const output: string[] = [];
  const start = (command: string, args: string[]): ChildProcess => {
    const child = spawn(command, args, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    children.push(child);
    return child;
  };
  start('pebble-challtestsrv', [
    ...['-http01', '', '-https01', '', '-tlsalpn01', ''],
    ...['-dns01', `127.0.0.1:${dnsPort}`, '-management', `127.0.0.1:${challengeManagementPort}`],
    ...['-defaultIPv4', '127.0.0.1', '-defaultIPv6', ''],
  ]);
  start('pebble', ['-config', join(dir, 'config.json'), '-dnsserver', `127.0.0.1:${dnsPort}`]);
  const directoryUrl = `https://localhost:${acmePort}/dir`;
  const stop = async (): Promise<void> => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) resolve();
            else {
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }
          }),
      ),
    );
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await httpsText(`https://localhost:${managementPort}/roots/0`, api.cert);
      break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`pebble did not start:\n${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    directoryUrl,
    apiCaFile: join(dir, 'api.pem'),
    root: async () => httpsText(`https://localhost:${managementPort}/roots/0`, api.cert),
    stop,
  };
}

/** The body of a GET over HTTPS trusting `ca`; rejects on a status other than 200. */
export function httpsText(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get(url, { ca, agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        response.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
  });
}
