/*
 * Debian's haproxy as the load balancer in front of several `svc server` processes (docs/ha.md),
 * on loopback: HTTP mode, round robin per request, servers checked on /healthz every 250 ms, and a
 * request whose server refuses the connection re-sent to another (redispatch).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Haproxy {
  readonly port: number;
  /** What haproxy printed (its log goes to stderr). */
  log(): string;
  stop(): Promise<void>;
}

/** The configuration; timeouts outlast svc's 30 s long-polls and its 25 s SSE keepalives. */
export function haproxyConfig(port: number, servers: Record<string, number>): string {
  const lines = Object.entries(servers).map(
    ([name, serverPort]) => `  server ${name} 127.0.0.1:${serverPort} check inter 250ms fall 2 rise 2`,
  );
  return `global
  maxconn 512
  log stderr format short local0 warning
defaults
  mode http
  log global
  retries 3
  option redispatch
  timeout connect 1s
  timeout client 90s
  timeout server 90s
  timeout http-request 10s
frontend svc
  bind 127.0.0.1:${port}
  default_backend servers
backend servers
  balance roundrobin
  option httpchk GET /healthz
  http-check expect status 200
${lines.join('\n')}
`;
}

/** Starts haproxy on `port` in front of `servers` (name → port) and waits until it accepts connections. */
export async function startHaproxy(port: number, servers: Record<string, number>): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(config, haproxyConfig(port, servers));
  // -db: stay in the foreground, so that the test owns the process and its exit.
  const child: ChildProcess = spawn('haproxy', ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited at start: ${log}`);
    if (await accepts(port)) break;
    if (tries > 100) {
      child.kill('SIGKILL');
      throw new Error(`haproxy did not listen on ${port}: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    port,
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
