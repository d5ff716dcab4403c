import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, enable, loginAs, tokenOf } from '../../test/api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../../test/doubles/github/index.js';
import { freePort, serverEnv, startRunner, startServer, type SvcProcess } from '../../test/e2e/system.js';

/** svc as users run it: `svc server` and `svc runner docker` processes, GitHub played by its double. */
export interface SvcSystem {
  readonly url: string;
  readonly github: GitHubDouble;
  readonly server: SvcProcess;
  readonly runner: SvcProcess;
  /** An API token of the repository's admin. */
  readonly token: string;
  /** The webhook URL svc registered at the double. */
  readonly hookUrl: string;
  readonly repo: string;
  close(): Promise<void>;
}

/** Starts the double, the server, logs in, enables `octocat/app`, and starts a runner. */
export async function startSvcSystem(): Promise<SvcSystem> {
  const github = await startGitHubDouble({ enterprise: true });
  github.addUser({ login: 'octocat' });
  const repo = 'octocat/app';
  github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'] });
  github.commit(repo, 'main', { 'README.md': 'bench\n' }, 'initial');
  const port = await freePort();
  const server = await startServer(serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-bench-')), github));
  const url = `http://127.0.0.1:${port}`;
  const session = await loginAs({ url }, 'octocat');
  const token = await tokenOf({ url }, session);
  await call({ url }, '/api/user/repos', { token });
  await enable({ url }, session, repo);
  const runner = startRunner(port, `bench-runner-${process.pid}`, []);
  return {
    url,
    github,
    server,
    runner,
    token,
    hookUrl: github.hooks(repo)[0]?.url ?? `${url}/hook`,
    repo,
    async close() {
      await runner.stop();
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
