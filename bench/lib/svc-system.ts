import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, enable, loginAs, tokenOf } from '../../test/api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../../test/doubles/github/index.js';
import {
  freePort,
  serverEnv,
  startRunner,
  startServer,
  startSvcRunner,
  type SvcProcess,
} from '../../test/e2e/system.js';

/** svc as users run it: `svc server` and `svc runner docker` processes, GitHub played by its double. */
export interface SvcSystem {
  readonly url: string;
  readonly github: GitHubDouble;
  readonly server: SvcProcess;
  /** The first runner (`runners[0]`). */
  readonly runner: SvcProcess;
  readonly runners: readonly SvcProcess[];
  /** An API token of the repository's admin. */
  readonly token: string;
  /** The webhook URL svc registered at the double. */
  readonly hookUrl: string;
  readonly repo: string;
  close(): Promise<void>;
}

/** How many `svc runner docker` processes to start, and settings they all get (SVC_RUNNER_CAPACITY…). */
export interface SvcSystemOptions {
  readonly runners?: number;
  readonly runnerEnv?: Record<string, string>;
  /** `svc runner docker` (default) or `svc runner ssh`. */
  readonly runnerKind?: 'docker' | 'ssh';
  /** Settings of the server besides the defaults (another SVC_DATABASE_DATASOURCE, SVC_USER_CREATE…). */
  readonly serverEnv?: Record<string, string>;
  /** The GitHub double's requests an hour (default GitHub's 5,000; each build costs a few). */
  readonly githubRateLimit?: number;
  /** The server's data folder (its database); by default a new folder of the system's temporary folder. */
  readonly dataDir?: string;
}

/** Starts the double, the server, logs in, enables `octocat/app`, and starts the runners (one by default). */
export async function startSvcSystem(options: SvcSystemOptions = {}): Promise<SvcSystem> {
  const github = await startGitHubDouble({
    enterprise: true,
    ...(options.githubRateLimit === undefined ? {} : { rateLimit: options.githubRateLimit }),
  });
  github.addUser({ login: 'octocat' });
  const repo = 'octocat/app';
  github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
  github.commit(repo, 'main', { 'README.md': 'bench\n' }, 'initial');
  const port = await freePort();
  const server = await startServer({
    ...serverEnv(port, options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-bench-')), github),
    ...options.serverEnv,
  });
  const url = `http://127.0.0.1:${port}`;
  const session = await loginAs({ url }, 'octocat');
  const token = await tokenOf({ url }, session);
  await call({ url }, '/api/user/repos', { token });
  await enable({ url }, session, repo);
  const runners = Array.from({ length: Math.max(1, options.runners ?? 1) }, (_, i) => {
    const name = `bench-runner-${process.pid}-${i + 1}`;
    return options.runnerKind === 'ssh'
      ? startSvcRunner('ssh', port, name, options.runnerEnv)
      : startRunner(port, name, [], options.runnerEnv);
  });
  const [runner] = runners;
  if (runner === undefined) throw new Error('no runner started');
  return {
    url,
    github,
    server,
    runner,
    runners,
    token,
    hookUrl: github.hooks(repo)[0]?.url ?? `${url}/hook`,
    repo,
    async close() {
      await Promise.all(runners.map((r) => r.stop()));
      await server.stop();
      await github.close();
    },
  };
}

/** The status of a build, read through the API. */
export async function buildStatus(system: SvcSystem, number: number): Promise<string | undefined> {
  const answer = await call({ url: system.url }, `/api/repos/${system.repo}/builds/${number}`, {
    token: system.token,
  });
  return answer.status === 200 ? (answer.json as { status: string }).status : undefined;
}
