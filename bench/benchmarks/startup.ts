/**
 * `startup` (issue 16): how long svc takes to become useful after its process starts.
 *  - `svc server` on SQLite with migrations already applied: process start → `/healthz` answers 200
 *    (target ≤ 300 ms), against a bare Node HTTP server started the same way.
 *  - `svc runner docker`: process start → its first poll for a stage reaches the server, against a
 *    bare Node process whose first act is the same request.
 * Both sides are separate processes spawned and polled identically, run interleaved after a warm-up.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchContext } from '../lib/benchmark.js';
import { interleave } from '../lib/process.js';
import { timeComparison, type BenchResult } from '../lib/result.js';

const RUNS = 15;
const SECRET = 'bench-startup-secret-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Ends the process and waits for its exit. */
function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Milliseconds from spawning `args` until GET `url` answers 200 (polled every 2 ms, 20 s at most). */
async function untilHealthy(
  node: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  url: string,
): Promise<number> {
  const started = performance.now();
  const child = spawn(node, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    while (performance.now() - started < 20_000) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${stderr.slice(-1000)}`);
      const ok = await fetch(url).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`not healthy within 20 s: ${stderr.slice(-1000)}`);
  } finally {
    await stop(child);
  }
}

async function serverStartup(ctx: BenchContext): Promise<BenchResult> {
  const data = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    SVC_SERVER_HOST: `127.0.0.1:${port}`,
    SVC_SERVER_PROTO: 'http',
    SVC_SERVER_PORT: `127.0.0.1:${port}`,
    SVC_RPC_SECRET: SECRET,
    SVC_DATABASE_DATASOURCE: join(data, 'svc.sqlite'),
  };
  const url = `http://127.0.0.1:${port}/healthz`;
  // The first start applies the migrations; the measured ones find them applied.
  await untilHealthy(ctx.node, [ctx.svcMain, 'server'], env, url);
  const bare = `require('node:http').createServer((q, s) => s.end('ok')).listen(${port}, '127.0.0.1')`;
  const samples = await interleave(
    RUNS,
    () => untilHealthy(ctx.node, [ctx.svcMain, 'server'], env, url),
    () => untilHealthy(ctx.node, ['-e', bare], env, url),
  );
  return timeComparison(
    {
      name: 'startup',
      metric: 'svc server: process start to /healthz 200 (SQLite, migrated)',
      notes: 'baseline: a bare node:http server process started and polled the same way; target ≤ 300 ms',
    },
    samples.a,
    samples.b,
  );
}

/** A stand-in server that answers a runner's ping and registration, and reports its first poll. */
async function pollCatcher(): Promise<{ server: Server; port: number; next(): Promise<number> }> {
  let waiting: ((at: number) => void) | undefined;
  const server = createServer((request, response) => {
    request.resume();
    if (request.method === 'POST' && request.url === '/rpc/v2/stage') {
      waiting?.(performance.now());
      waiting = undefined;
    }
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    next: () => new Promise<number>((resolve) => (waiting = resolve)),
  };
}

async function runnerStartup(ctx: BenchContext): Promise<BenchResult> {
  const catcher = await pollCatcher();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DOCKER_HOST: process.env.DOCKER_HOST ?? '',
    SVC_RPC_HOST: `127.0.0.1:${catcher.port}`,
    SVC_RPC_PROTO: 'http',
    SVC_RPC_SECRET: SECRET,
    SVC_RUNNER_NAME: 'bench-startup',
    SVC_HTTP_BIND: '127.0.0.1:0',
  };
  const firstPoll = async (args: string[]): Promise<number> => {
    const polled = catcher.next();
    const started = performance.now();
    const child = spawn(ctx.node, args, { env, stdio: ['ignore', 'ignore', 'ignore'] });
    try {
      const at = await Promise.race([
        polled,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no poll within 30 s')), 30_000)),
      ]);
      return at - started;
    } finally {
      await stop(child);
    }
  };
  const bare = `fetch('http://127.0.0.1:${catcher.port}/rpc/v2/stage', { method: 'POST', body: '{}' })`;
  try {
    const samples = await interleave(
      RUNS,
      () => firstPoll([ctx.svcMain, 'runner', 'docker']),
      () => firstPoll(['-e', bare]),
    );
    return timeComparison(
      {
        name: 'startup',
        metric: 'svc runner docker: process start to its first poll for a stage',
        notes: 'baseline: a bare node process whose first act is the same POST /rpc/v2/stage',
      },
      samples.a,
      samples.b,
    );
  } finally {
    catcher.server.close();
  }
}

export const startup: Benchmark = {
  name: 'startup',
  needs: ['docker'],
  async run(ctx) {
    return [await serverStartup(ctx), await runnerStartup(ctx)];
  },
};
