/**
 * A real private registry on loopback: Debian's `docker-registry` (the CNCF distribution registry
 * 2.8) with htpasswd basic auth and filesystem storage in a temporary folder, holding one image pushed
 * with the docker command. The Docker engine trusts 127.0.0.0/8 registries over plain HTTP.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inCi } from './services.js';

export interface DistributionRegistry {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** `<address>/svc-test/busybox:private`: local/busybox, pushed with the credentials. */
  readonly image: string;
  readonly username: string;
  readonly password: string;
  close(): Promise<void>;
}

/** Whether the registry can run here; outside CI a missing package skips its suite, in CI it fails. */
export function registryForTests(): { skip: boolean } {
  try {
    execFileSync('docker-registry', ['--version'], { stdio: 'ignore' });
    execFileSync('htpasswd', ['-h'], { stdio: 'ignore' });
    return { skip: false };
  } catch (error) {
    // htpasswd -h exits 2 while printing its usage: only a missing command is a failure.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return { skip: false };
    const message = 'docker-registry or htpasswd is missing (apt-get install docker-registry apache2-utils)';
    if (inCi) throw new Error(`required in CI: ${message}`);
    console.warn(`skipping private registry tests: ${message}`);
    return { skip: true };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export async function startDistributionRegistry(): Promise<DistributionRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-'));
  const username = 'octo';
  const password = 'registry-p4ss';
  execFileSync('htpasswd', ['-Bbc', join(dir, 'htpasswd'), username, password], { stdio: 'ignore' });
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  writeFileSync(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: { level: error }',
      `storage: { filesystem: { rootdirectory: ${join(dir, 'data')} }, delete: { enabled: true } }`,
      `http: { addr: "${address}" }`,
      `auth: { htpasswd: { realm: svc-test, path: ${join(dir, 'htpasswd')} } }`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], {
    stdio: 'ignore',
  });
  const docker = (...args: string[]): void => {
    execFileSync('docker', args, {
      env: { ...process.env, DOCKER_CONFIG: join(dir, 'docker') },
      input: args[0] === 'login' ? password : '',
      stdio: 'pipe',
    });
  };
  const image = `${address}/svc-test/busybox:private`;
  for (let i = 0; ; i++) {
    try {
      docker('login', '-u', username, '--password-stdin', address);
      break;
    } catch {
      if (i > 50) throw new Error(`the registry at ${address} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  docker('tag', 'local/busybox', image);
  docker('push', image);
  // Only the registry has it now: a step using it must pull, with credentials.
  docker('image', 'rm', image);
  return {
    address,
    image,
    username,
    password,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 100));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
