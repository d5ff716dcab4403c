/*
 * End-to-end support: svc as users run it — `svc server` and `svc runner docker` as real processes —
 * wired to the GitHub double, a real git server container and the real Docker engine.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished, listeningUrl, startSvc, type SvcRun } from '../support/svc-process.js';

export const RPC_SECRET = 'e2e-rpc-secret-0123456789abcdef';

/** The one-step pipeline of the providers' end-to-end tests: it reads the cloned README. */
export const E2E_PIPELINE = `kind: pipeline
type: docker
name: default
steps:
- name: test
  image: local/busybox
  pull: if-not-exists
  commands:
  - cat README.md
`;

/** A free TCP port on loopback: the server's address must be known before it starts (webhook URLs). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A running svc process and how to stop it. */
export interface SvcProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything it wrote on stderr so far (its log). */
  log(): string;
  /** SIGTERM, then the exit. */
  stop(): Promise<SvcRun>;
  /** SIGKILL: as if the machine died. */
  kill(): Promise<SvcRun>;
}

function track(child: ChildProcessWithoutNullStreams): SvcProcess {
  let log = '';
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const done = finished(child);
  return {
    child,
    log: () => log,
    stop: () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return done;
    },
    kill: () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      return done;
    },
  };
}

/** The settings of an svc server on `port` using the GitHub double at `github`. */
export function serverEnv(
  port: number,
  dataDir: string,
  github: { url: string; clientId: string; clientSecret: string },
): Record<string, string> {
  return providerServerEnv(port, dataDir, {
    SVC_SCMC_CLIENT_ID: github.clientId,
    SVC_SCMC_CLIENT_SECRET: github.clientSecret,
    SVC_SCMC_SERVER: github.url,
  });
}

/** The settings of an svc server on `port` with the git provider that `provider`'s settings choose. */
export function providerServerEnv(
  port: number,
  dataDir: string,
  provider: Record<string, string>,
): Record<string, string> {
  return {
    ...provider,
    SVC_SERVER_HOST: `127.0.0.1:${port}`,
    SVC_SERVER_PROTO: 'http',
    SVC_SERVER_PORT: `127.0.0.1:${port}`,
    SVC_RPC_SECRET: RPC_SECRET,
    SVC_DATABASE_DATASOURCE: join(dataDir, 'svc.sqlite'),
    SVC_COOKIE_SECRET: 'e2e-cookie-secret-0123456789abcdef',
  };
}

/** Starts `svc server` and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<SvcProcess> {
  const child = startSvc(['server'], { cwd: mkdtempSync(join(tmpdir(), 'svc-e2e-cwd-')), env });
  const process = track(child);
  await listeningUrl(child);
  return process;
}

/** Starts `svc runner <kind>` (ssh, vm, nomad, kubernetes) against the server on `port`, with the kind's settings. */
export function startSvcRunner(
  kind: 'ssh' | 'vm' | 'nomad' | 'kubernetes',
  port: number,
  name: string,
  env: Record<string, string> = {},
): SvcProcess {
  const child = startSvc(['runner', kind], {
    cwd: mkdtempSync(join(tmpdir(), 'svc-e2e-runner-')),
    env: {
      SVC_RPC_HOST: `127.0.0.1:${port}`,
      SVC_RPC_PROTO: 'http',
      SVC_RPC_SECRET: RPC_SECRET,
      SVC_RUNNER_NAME: name,
      SVC_HTTP_BIND: '127.0.0.1:0',
      ...env,
    },
  });
  return track(child);
}

/** Starts `svc runner docker` against the server on `port`, joined to `networks`, with `env` besides. */
export function startRunner(
  port: number,
  name: string,
  networks: string[],
  env: Record<string, string> = {},
): SvcProcess {
  const child = startSvc(['runner', 'docker'], {
    cwd: mkdtempSync(join(tmpdir(), 'svc-e2e-runner-')),
    env: {
      DOCKER_HOST: process.env.DOCKER_HOST ?? '',
      SVC_RPC_HOST: `127.0.0.1:${port}`,
      SVC_RPC_PROTO: 'http',
      SVC_RPC_SECRET: RPC_SECRET,
      SVC_RUNNER_NAME: name,
      SVC_RUNNER_NETWORKS: networks.join(','),
      SVC_HTTP_BIND: '127.0.0.1:0',
      ...env,
    },
  });
  return track(child);
}

/** Polls `check` until it returns a value, failing after `timeoutMs` with what `describe` says. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
