/*
 * Two `svc server` processes on one PostgreSQL or MariaDB database behind Debian's haproxy, with the
 * GitHub double (docs/ha.md): what the HA fault tests and the failover benchmark
 * (`npm run bench -- failover`) start, push to, kill and read.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import type { GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startServer, waitFor, type SvcProcess } from '../e2e/system.js';
import { datasourceSetting, type TestDatabase } from '../support/databases.js';
import { startHaproxy, type Haproxy } from '../support/haproxy.js';
import { appDouble, workPipeline } from './pipelines.js';

export const REPO = 'octocat/app';

export interface HaStep {
  number: number;
  name: string;
  status: string;
}
export interface HaBuild {
  number: number;
  status: string;
  event?: string;
  stages?: { number: number; status: string; steps?: HaStep[] }[];
}

export type ServerName = 'a' | 'b';

/** The step `work` of a build's first stage. */
export function workStep(build: HaBuild): HaStep | undefined {
  return build.stages?.[0]?.steps?.find((s) => s.name === 'work');
}

/** Whether a build is over. */
export function isOver(build: HaBuild): boolean {
  return !['pending', 'running'].includes(build.status);
}

export class HaCluster {
  readonly servers: Record<ServerName, { port: number; process?: SvcProcess; logs: string[] }>;
  readonly github: GitHubDouble;
  readonly balancer: Haproxy;
  readonly token: string;
  readonly #env: (port: number) => Record<string, string>;
  readonly #hookUrl: string;

  private constructor(parts: {
    servers: HaCluster['servers'];
    github: GitHubDouble;
    balancer: Haproxy;
    token: string;
    env: (port: number) => Record<string, string>;
    hookUrl: string;
  }) {
    this.servers = parts.servers;
    this.github = parts.github;
    this.balancer = parts.balancer;
    this.token = parts.token;
    this.#env = parts.env;
    this.#hookUrl = parts.hookUrl;
  }

  /** Starts both servers on `database`, the balancer in front, and enables octocat/app. */
  static async start(database: TestDatabase, settings: Record<string, string> = {}): Promise<HaCluster> {
    const github = await appDouble();
    const [lb, a, b] = [await freePort(), await freePort(), await freePort()];
    const data = mkdtempSync(join(tmpdir(), 'svc-ha-'));
    const env = (port: number): Record<string, string> => ({
      ...serverEnv(port, data, github),
      // Both servers are one service at the balancer's address (links, webhooks, OAuth).
      SVC_SERVER_HOST: `127.0.0.1:${lb}`,
      SVC_DATABASE_DRIVER: database.datasource.driver,
      SVC_DATABASE_DATASOURCE: datasourceSetting(database.datasource),
      ...settings,
    });
    const servers: HaCluster['servers'] = {
      a: { port: a, process: await startServer(env(a)), logs: [] },
      b: { port: b, process: await startServer(env(b)), logs: [] },
    };
    const balancer = await startHaproxy(lb, { a, b });
    const front = { url: `http://127.0.0.1:${lb}` };
    const session = await loginAs(front, 'octocat');
    const token = await tokenOf(front, session);
    await enable(front, session, REPO);
    const hookUrl = github.hooks(REPO)[0]?.url ?? '';
    return new HaCluster({ servers, github, balancer, token, env, hookUrl });
  }

  url(port: number, path = ''): string {
    return `http://127.0.0.1:${port}${path}`;
  }

  /** Pushes a commit whose pipeline runs `command` (plus `extra` pipelines); the number of the build it makes. */
  async push(command: string, message: string, extra = ''): Promise<number> {
    const files = { '.drone.yml': workPipeline([command], { events: ['push'] }) + extra };
    const sha = randomBytes(20).toString('hex');
    this.github.commit(REPO, 'main', files, message, 'octocat', sha);
    const status = await this.github.push(REPO, 'main', this.#hookUrl);
    if (status !== 200) throw new Error(`the push of "${message}" was answered ${status}`);
    // The webhook's answer comes once the build exists; cron builds may have taken numbers between.
    const list = await this.api(this.balancer.port, `/api/repos/${REPO}/builds?per_page=50`);
    // A cron build of the branch made meanwhile has the same commit: the push's is the `push` one.
    const builds = list.json as { number: number; after: string; event: string }[];
    const made = builds.find((b) => b.after === sha && b.event === 'push');
    if (made === undefined) throw new Error(`the push of "${message}" made no build`);
    return made.number;
  }

  /** Reads `path` of the API on `port` with the user's token. */
  api(port: number, path: string, init: { method?: string; body?: unknown } = {}) {
    return call({ url: this.url(port) }, path, { token: this.token, ...init });
  }

  /** Waits until build `number`, read on `port`, passes `done`. */
  build(port: number, number: number, done: (b: HaBuild) => boolean, timeoutMs?: number): Promise<HaBuild> {
    return waitFor(
      `build ${number}`,
      async () => {
        const answer = await this.api(port, `/api/repos/${REPO}/builds/${number}`).catch(() => undefined);
        const found = answer?.status === 200 ? (answer.json as HaBuild) : undefined;
        return found !== undefined && done(found) ? found : undefined;
      },
      timeoutMs,
    );
  }

  /** The trimmed lines of a build's step `work`, read on `port`. */
  async workLines(port: number, build: HaBuild): Promise<string[]> {
    const log = await this.api(
      port,
      `/api/repos/${REPO}/builds/${build.number}/logs/1/${workStep(build)?.number}`,
    );
    if (log.status !== 200) throw new Error(`the log of build ${build.number} was answered ${log.status}`);
    return (log.json as { out: string }[]).map((line) => line.out.trim());
  }

  /** Whether the server runs now. */
  up(name: ServerName): boolean {
    const child = this.servers[name].process?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** SIGKILLs a server (as if its machine died); its log is kept. */
  async kill(name: ServerName): Promise<void> {
    const server = this.servers[name];
    await server.process?.kill();
    server.logs.push(server.process?.log() ?? '');
  }

  /** Stops a server with SIGTERM; its log is kept. */
  async stop(name: ServerName): Promise<void> {
    const server = this.servers[name];
    await server.process?.stop();
    server.logs.push(server.process?.log() ?? '');
  }

  /** Starts a server that is down again, on its port, and waits until the balancer sees it. */
  async restart(name: ServerName): Promise<void> {
    if (this.up(name)) return;
    const server = this.servers[name];
    server.process = await startServer(this.#env(server.port));
    // The balancer checks /healthz every 250 ms and needs 2 good answers (test/support/haproxy.ts).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
  }

  /** Every log line both servers wrote, over all their runs. */
  logs(): string[] {
    const all: string[] = [];
    for (const name of ['a', 'b'] as const) {
      const server = this.servers[name];
      const runs = this.up(name) ? [...server.logs, server.process?.log() ?? ''] : server.logs;
      for (const run of runs) all.push(...run.split('\n'));
    }
    return all;
  }

  async close(): Promise<void> {
    await this.balancer.stop();
    for (const name of ['a', 'b'] as const) if (this.up(name)) await this.stop(name);
    await this.github.close();
  }
}
