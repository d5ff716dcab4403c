/*
 * The frame of the fault tests that break the server or the network under a running build: the
 * GitHub double behind a TCP proxy (to hold the server's commit-status posts), `svc server` on a
 * SQLite file that it can be SIGKILLed and restarted on (same file, same port), and Docker runners
 * that reach the server through another proxy (to hold or break their requests). Pipelines disable
 * the clone: the repository lives only in the double, and the steps need nothing from it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import type { GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from '../e2e/system.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { appDouble } from './pipelines.js';

export const REPO = 'octocat/app';

/** A step as the API shows it. */
export interface ApiStep {
  number: number;
  name: string;
  status: string;
  started: number;
  stopped: number;
  version: number;
  exit_code: number;
}

/** A build as the API shows it, as far as these tests read it. */
export interface ApiBuild {
  number: number;
  status: string;
  started: number;
  finished: number;
  stages?: { number: number; name: string; status: string; version: number; steps?: ApiStep[] }[];
}

/** A stored log line. */
export interface ApiLine {
  pos: number;
  out: string;
}

const FINAL = ['success', 'failure', 'error', 'killed', 'skipped', 'declined'];

/** One Docker stage without clone, a step per entry of `steps` (name → its commands), in order. */
export function pipeline(steps: Record<string, string[]>): string {
  const body = Object.entries(steps)
    .map(
      ([name, commands]) =>
        `- name: ${name}\n  image: local/busybox\n  pull: if-not-exists\n  commands:\n${commands.map((c) => `  - ${JSON.stringify(c)}`).join('\n')}\n`,
    )
    .join('');
  return `kind: pipeline\ntype: docker\nname: default\nclone:\n  disable: true\nsteps:\n${body}`;
}

/**
 * A shell loop printing 1 … `count`, one number a line, pausing `pause` seconds every `every`
 * lines: a log that streams for a while in many batches, and whose every line is known.
 */
export function numbered(count: number, every: number, pause: number): string {
  return `i=1; while [ $i -le ${count} ]; do echo $i; if [ $((i % ${every})) -eq 0 ]; then sleep ${pause}; fi; i=$((i + 1)); done`;
}

export class CrashFrame {
  readonly github: GitHubDouble;
  /** Between the server and the GitHub double. */
  readonly githubProxy: TcpProxy;
  /** Between the runners and the server. */
  readonly runnerProxy: TcpProxy;
  readonly port: number;
  readonly token: string;
  readonly #env: Record<string, string>;
  readonly #hookUrl: string;
  readonly #runners: SvcProcess[] = [];
  #server: SvcProcess;

  private constructor(parts: {
    github: GitHubDouble;
    githubProxy: TcpProxy;
    runnerProxy: TcpProxy;
    port: number;
    token: string;
    env: Record<string, string>;
    hookUrl: string;
    server: SvcProcess;
  }) {
    this.github = parts.github;
    this.githubProxy = parts.githubProxy;
    this.runnerProxy = parts.runnerProxy;
    this.port = parts.port;
    this.token = parts.token;
    this.#env = parts.env;
    this.#hookUrl = parts.hookUrl;
    this.#server = parts.server;
  }

  static async start(): Promise<CrashFrame> {
    const github = await appDouble();
    const githubProxy = await TcpProxy.start({ port: Number(new URL(github.url).port) });
    const port = await freePort();
    const runnerProxy = await TcpProxy.start({ port });
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-faults-data-'));
    const env = serverEnv(port, dataDir, { ...github, url: `http://127.0.0.1:${githubProxy.port}` });
    const server = await startServer(env);
    const url = { url: `http://127.0.0.1:${port}` };
    const session = await loginAs(url, 'octocat');
    const token = await tokenOf(url, session);
    await enable(url, session, REPO);
    const hookUrl = github.hooks(REPO)[0]?.url ?? '';
    if (hookUrl === '') throw new Error('enabling the repository created no webhook at the double');
    return new CrashFrame({ github, githubProxy, runnerProxy, port, token, env, hookUrl, server });
  }

  get server(): SvcProcess {
    return this.#server;
  }

  /**
   * SIGKILLs the server and starts it again on the same SQLite file and port; resolves once the new
   * one listens, with how long the server was gone (ms).
   */
  async restart(): Promise<number> {
    const killedAt = Date.now();
    await this.#server.kill();
    this.#server = await startServer(this.#env);
    return Date.now() - killedAt;
  }

  /** Starts `svc runner docker` (one stage at a time) that reaches the server through the proxy. */
  runner(name: string): SvcProcess {
    const runner = startRunner(this.runnerProxy.port, name, [], { SVC_RUNNER_CAPACITY: '1' });
    this.#runners.push(runner);
    return runner;
  }

  /** Commits `files` at the double and sends the push webhook; returns the commit's sha. */
  async push(files: Record<string, string>, message: string): Promise<string> {
    const sha = randomBytes(20).toString('hex');
    this.github.commit(REPO, 'main', files, message, 'octocat', sha);
    const status = await this.github.push(REPO, 'main', this.#hookUrl);
    if (status !== 200) throw new Error(`the push webhook answered ${status}`);
    return sha;
  }

  /** Build `number` as the API shows it now (undefined while the server does not answer). */
  async build(number: number): Promise<ApiBuild | undefined> {
    try {
      const answer = await call({ url: this.url() }, `/api/repos/${REPO}/builds/${number}`, {
        token: this.token,
      });
      return answer.status === 200 ? (answer.json as ApiBuild) : undefined;
    } catch {
      return undefined; // the server is down: ask again
    }
  }

  /** Waits for build `number` until `done` says so (default: it ended). */
  buildWhen(
    number: number,
    done: (build: ApiBuild) => boolean = (b) => FINAL.includes(b.status),
    timeoutMs = 90_000,
  ): Promise<ApiBuild> {
    return waitFor(
      `build ${number}`,
      async () => {
        const found = await this.build(number);
        return found !== undefined && done(found) ? found : undefined;
      },
      timeoutMs,
    );
  }

  /** The stored log of step `step` of the build's first stage. */
  async log(build: ApiBuild, step: string): Promise<ApiLine[]> {
    const stage = build.stages?.[0];
    const row = stage?.steps?.find((s) => s.name === step);
    if (stage === undefined || row === undefined)
      throw new Error(`build ${build.number} has no step ${step}`);
    const answer = await call(
      { url: this.url() },
      `/api/repos/${REPO}/builds/${build.number}/logs/${stage.number}/${row.number}`,
      { token: this.token },
    );
    if (answer.status !== 200) throw new Error(`the log of ${step}: ${answer.status} ${answer.text}`);
    return answer.json as ApiLine[];
  }

  /** The commit statuses GitHub got for `sha`, once the last one is `state`. */
  statusesWhen(sha: string, state: string, timeoutMs = 60_000): Promise<string[]> {
    return waitFor(
      `the ${state} commit status`,
      () => {
        const posted = this.github.statuses(REPO, sha);
        return Promise.resolve(posted.at(-1)?.state === state ? posted.map((s) => s.state) : undefined);
      },
      timeoutMs,
    );
  }

  url(path = ''): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    for (const runner of this.#runners) await stopWithin(runner, 20_000);
    await this.#server.stop();
    await this.runnerProxy.close();
    await this.githubProxy.close();
    await this.github.close();
  }
}

/** The numbers a step printed: its lines but the shell's trace (`+ …`) of the commands. */
export function printed(lines: readonly ApiLine[]): string[] {
  return lines.filter((line) => !line.out.startsWith('+ ')).map((line) => line.out.replace(/\n$/, ''));
}

/** 1 … `count` as the lines a numbered step prints. */
export function sequence(count: number): string[] {
  return Array.from({ length: count }, (_, i) => String(i + 1));
}

/** Lines stored more than once: by position, and by text among the numbered ones. */
export function duplicates(lines: readonly ApiLine[]): { positions: number; numbers: number } {
  const positions = lines.length - new Set(lines.map((line) => line.pos)).size;
  const numbers = printed(lines);
  return { positions, numbers: numbers.length - new Set(numbers).size };
}

/**
 * Stops a runner the way an operator would when a test failed with a stage still running: SIGTERM,
 * a second one after 5 s (it cancels the running stages), SIGKILL once `ms` passed.
 */
async function stopWithin(runner: SvcProcess, ms: number): Promise<void> {
  const stopped = runner.stop();
  const timers: NodeJS.Timeout[] = [];
  const after = (delay: number, act: () => void): Promise<void> =>
    new Promise((resolve) => timers.push(setTimeout(() => resolve(act()), delay)));
  await Promise.race([
    stopped,
    after(5_000, () => runner.child.exitCode === null && runner.child.kill('SIGTERM')),
  ]);
  await Promise.race([stopped, after(ms, () => runner.child.kill('SIGKILL'))]);
  for (const timer of timers) clearTimeout(timer);
  await stopped;
}
