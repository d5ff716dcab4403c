/*
 * The common frame of the git providers' end-to-end tests: a real git server (the clone step's),
 * the provider's double, `svc server` configured for it and `svc runner docker`, and the few calls
 * every such test makes (commit to both, wait for a build, list builds, log in through OAuth).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, cookieHeader, type BrowserSession } from '../api/client.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import { freePort, providerServerEnv, startRunner, startServer, waitFor, type SvcProcess } from './system.js';

/** A build as the API answers it, as far as these tests read it. */
export interface ApiBuild {
  number: number;
  status: string;
  event: string;
  ref: string;
  after: string;
  message: string;
}

/** What the frame needs of a provider's double. */
export interface E2EForge {
  commit(
    fullName: string,
    branch: string,
    files: Record<string, string>,
    message: string,
    author: string,
    sha: string,
  ): string;
  close(): Promise<void>;
}

export interface E2EOptions {
  forge: E2EForge;
  /** The repository under test, its branch and the account commits are made as. */
  repo: string;
  branch: string;
  author: string;
  runnerName: string;
  /** Adds the repositories to the double, the tested one with the git server's clone URL. */
  addRepos(cloneUrl: string): void;
  /** The settings that select the provider. */
  settings: Record<string, string>;
}

const ENDED = ['success', 'failure', 'error', 'killed'];

/** A running frame; `stop` ends everything it started. */
export class ProviderE2E {
  token = '';
  server: SvcProcess | undefined;
  runner: SvcProcess | undefined;
  readonly #options: E2EOptions;
  readonly #git: GitServer;
  readonly #port: number;

  private constructor(options: E2EOptions, git: GitServer, port: number) {
    this.#options = options;
    this.#git = git;
    this.#port = port;
  }

  static async start(
    options: E2EOptions,
    docker: Parameters<typeof startGitServer>[0],
  ): Promise<ProviderE2E> {
    const git = await startGitServer(docker, { 'io.svc.owner': options.runnerName });
    const frame = new ProviderE2E(options, git, await freePort());
    options.addRepos(git.cloneUrl(options.repo));
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-e2e-provider-'));
    frame.server = await startServer(providerServerEnv(frame.#port, dataDir, options.settings));
    frame.runner = startRunner(frame.#port, options.runnerName, [git.network]);
    return frame;
  }

  url(path = ''): string {
    return `http://127.0.0.1:${this.#port}${path}`;
  }

  /** The repository under test and its branch. */
  get repo(): string {
    return this.#options.repo;
  }

  get branch(): string {
    return this.#options.branch;
  }

  get git(): GitServer {
    return this.#git;
  }

  /** Commits to the real git server and mirrors the commit, same sha, at the double. */
  push(files: Record<string, string>, message: string): string {
    const { repo, branch, author, forge } = this.#options;
    const sha = this.#git.commit(repo, branch, files, message);
    forge.commit(repo, branch, files, message, author, sha);
    return sha;
  }

  /** Build `number` once it exists and `done` says its status is what the test waits for. */
  build(
    number: number,
    done: (status: string) => boolean = (status) => ENDED.includes(status),
  ): Promise<ApiBuild> {
    return waitFor(`build ${number}`, async () => {
      const answer = await call({ url: this.url() }, `/api/repos/${this.#options.repo}/builds/${number}`, {
        token: this.token,
      });
      const found = answer.status === 200 ? (answer.json as ApiBuild) : undefined;
      return found !== undefined && done(found.status) ? found : undefined;
    });
  }

  async builds(): Promise<ApiBuild[]> {
    return (await call({ url: this.url() }, `/api/repos/${this.#options.repo}/builds`, { token: this.token }))
      .json as ApiBuild[];
  }

  /**
   * An OAuth 2 login as a browser makes it: svc's `/login`, the provider's authorize page (the
   * double acts at once for `login`), back to svc with the code. Returns the authorize URL too.
   */
  async oauthLogin(login: string): Promise<{ session: BrowserSession; authorize: URL }> {
    const start = await fetch(this.url('/login'), { redirect: 'manual' });
    const authorize = new URL(start.headers.get('location') ?? '');
    const atProvider = new URL(authorize);
    atProvider.searchParams.set('login', login);
    const granted = await fetch(atProvider, { redirect: 'manual' });
    const back = await fetch(granted.headers.get('location') ?? '', {
      redirect: 'manual',
      headers: { cookie: cookieHeader(start.headers.getSetCookie()) },
    });
    if (back.status !== 302)
      throw new Error(`the login of ${login} answered ${back.status}: ${await back.text()}`);
    const setCookies = back.headers.getSetCookie();
    const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
    const me = await call({ url: this.url() }, '/api/user', { session: { cookie, csrf: '', setCookies } });
    return { session: { cookie, csrf: (me.json as { csrf: string }).csrf, setCookies }, authorize };
  }

  async stop(): Promise<void> {
    await this.runner?.stop();
    await this.server?.stop();
    await this.#git.close();
    await this.#options.forge.close();
  }
}
