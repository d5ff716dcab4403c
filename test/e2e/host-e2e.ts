/*
 * The frame of the runners' end-to-end tests but Docker's (`svc runner ssh`, `vm`, `nomad`,
 * `kubernetes`): the GitHub double with a repository whose clone URL is a bare repository on this
 * machine (the hosts clone with their own git) or the test's git server (containers clone from it),
 * `svc server`, a logged-in user with the repository enabled and its secrets.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import { startGitHubDouble, type GitHubDouble } from '../doubles/github/index.js';
import { localRepository } from './host-repository.js';
import { freePort, serverEnv, startServer, waitFor, type SvcProcess } from './system.js';

export const REPO = 'octocat/app';

/** Where the repository lives: its clone URL, and how a commit gets there (returns the sha). */
export interface E2ERepository {
  url: string;
  commit(files: Record<string, string>, message: string): string;
}

/** How a test shapes the frame. */
export interface HostE2EOptions {
  /** The repository (default: a bare repository on this machine that `owner` can read). */
  repository?: E2ERepository;
  /** Settings of the server on `port` besides the frame's (e.g. SVC_SERVER_PORT on every interface). */
  server?: (port: number) => Record<string, string>;
  /**
   * The server's database (default: a SQLite file in a new temporary folder): `driver` and
   * `datasource` as SVC_DATABASE_DRIVER and SVC_DATABASE_DATASOURCE take them.
   */
  database?: { driver: 'embedded_sql' | 'sql_a' | 'sql_b'; datasource: string };
}

/** A build as the API answers it, as far as these tests read it. */
export interface HostBuild {
  number: number;
  status: string;
  stages?: { number: number; status: string; steps?: { number: number; name: string; status: string }[] }[];
}

export class HostE2E {
  readonly github: GitHubDouble;
  readonly server: SvcProcess;
  readonly port: number;
  readonly token: string;
  readonly hookUrl: string;
  readonly #repo: E2ERepository;

  private constructor(parts: {
    github: GitHubDouble;
    server: SvcProcess;
    port: number;
    token: string;
    hookUrl: string;
    repo: E2ERepository;
  }) {
    this.github = parts.github;
    this.server = parts.server;
    this.port = parts.port;
    this.token = parts.token;
    this.hookUrl = parts.hookUrl;
    this.#repo = parts.repo;
  }

  /** `owner`: the account the steps run as, which must be able to read the repository. */
  static async start(
    owner: string,
    secrets: Record<string, string>,
    options: HostE2EOptions = {},
  ): Promise<HostE2E> {
    const repo = options.repository ?? localRepository(owner);
    const github = await startGitHubDouble({ enterprise: true });
    github.addUser({ login: 'octocat', email: 'octocat@example.com' });
    github.addRepo({ owner: 'octocat', name: 'app', admins: ['octocat'], cloneUrl: repo.url });
    const port = await freePort();
    const server = await startServer({
      ...serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-e2e-data-')), github),
      ...(options.database === undefined
        ? {}
        : {
            SVC_DATABASE_DRIVER: options.database.driver,
            SVC_DATABASE_DATASOURCE: options.database.datasource,
          }),
      ...options.server?.(port),
    });
    const url = { url: `http://127.0.0.1:${port}` };
    const session = await loginAs(url, 'octocat');
    const token = await tokenOf(url, session);
    await enable(url, session, REPO);
    for (const [name, data] of Object.entries(secrets)) {
      const created = await call(url, `/api/repos/${REPO}/secrets`, {
        method: 'POST',
        token,
        body: { name, data },
      });
      if (created.status !== 200) throw new Error(`secret ${name}: ${created.text}`);
    }
    const hookUrl = github.hooks(REPO)[0]?.url ?? '';
    return new HostE2E({ github, server, port, token, hookUrl, repo });
  }

  /** Commits to the local repository and mirrors the commit at the double, then sends its push. */
  async push(files: Record<string, string>, message: string): Promise<string> {
    const sha = this.#repo.commit(files, message);
    this.github.commit(REPO, 'main', files, message, 'octocat', sha);
    const status = await this.github.push(REPO, 'main', this.hookUrl);
    if (status !== 200) throw new Error(`the push webhook answered ${status}`);
    return sha;
  }

  /** Build `number` once `done` says so (default: when it ended). */
  build(
    number: number,
    done: (build: HostBuild) => boolean = (b) => !['pending', 'running'].includes(b.status),
  ) {
    return waitFor(`build ${number}`, async () => {
      const answer = await call({ url: this.url() }, `/api/repos/${REPO}/builds/${number}`, {
        token: this.token,
      });
      const found = answer.status === 200 ? (answer.json as HostBuild) : undefined;
      return found !== undefined && done(found) ? found : undefined;
    });
  }

  /** The stored log of a step of the build's first stage (or of stage `stageNumber`). */
  async log(build: HostBuild, step: string, stageNumber = 1): Promise<string[]> {
    const stage = build.stages?.find((s) => s.number === stageNumber);
    const row = stage?.steps?.find((s) => s.name === step);
    const answer = await call(
      { url: this.url() },
      `/api/repos/${REPO}/builds/${build.number}/logs/${stage?.number}/${row?.number}`,
      { token: this.token },
    );
    return (answer.json as { out: string }[]).map((line) => line.out);
  }

  /**
   * Follows a running step's live log (server-sent events) until a line containing `text` arrives;
   * the lines seen so far. Fails after 20 s.
   */
  async follow(build: HostBuild, step: string, text: string): Promise<string[]> {
    const stage = build.stages?.[0];
    const row = stage?.steps?.find((s) => s.name === step);
    const abort = AbortSignal.timeout(20_000);
    const response = await fetch(
      this.url(`/api/repos/${REPO}/builds/${build.number}/logs/${stage?.number}/${row?.number}/stream`),
      { headers: { authorization: `Bearer ${this.token}` }, signal: abort },
    );
    const lines: string[] = [];
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body ?? []) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, end))?.[1];
        buffer = buffer.slice(end + 2);
        if (data === undefined || !data.startsWith('{')) continue;
        lines.push(((JSON.parse(data) as { out: string }).out ?? '').replace(/\n$/, ''));
        if (lines.at(-1)?.includes(text) === true) return lines;
      }
    }
    throw new Error(`the live log ended without "${text}": ${lines.join(' | ')}`);
  }

  /** Cancels build `number` (`DELETE /api/repos/{owner}/{name}/builds/{number}`). */
  async cancel(number: number): Promise<void> {
    const answer = await call({ url: this.url() }, `/api/repos/${REPO}/builds/${number}`, {
      method: 'DELETE',
      token: this.token,
    });
    if (answer.status !== 200) throw new Error(`cancelling build ${number}: ${answer.status} ${answer.text}`);
  }

  /** Waits for GitHub to get the success status of `sha`. */
  succeeded(sha: string): Promise<true> {
    return waitFor('the success status', () =>
      Promise.resolve(this.github.statuses(REPO, sha).at(-1)?.state === 'success' ? true : undefined),
    );
  }

  url(path = ''): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.github.close();
  }
}
