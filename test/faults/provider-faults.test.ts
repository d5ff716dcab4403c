/**
 * Faults of the git provider (issue 15, fault 5), injected into its double while `svc server` runs
 * as a real process. Each test states what svc promises and measures it:
 *  - webhook: a config fetch the provider fails (a closed connection, 5xx) is retried (3 attempts,
 *    0.5 s then 1 s apart); when the provider stays down or asks for a long pause (429), the webhook
 *    still answers 200 within seconds with an error build naming the failure, and restarting that
 *    build once the provider answers reads the file again;
 *  - statuses: a status the provider does not take is kept in the database and posted once it
 *    answers again — by the running server, or after it was killed (SIGKILL) and started again —
 *    and a newer state of the same commit supersedes an unsent older one (only the newest reaches
 *    the provider);
 *  - token refresh: a refresh the provider fails is retried; when it stays down the build says so,
 *    the user's refresh token stays valid, and the next attempt after recovery works.
 * No runner: the builds stay pending (or are cancelled), which is all the statuses need.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, cookieHeader, enable, loginAs, tokenOf, type BrowserSession } from '../api/client.js';
import type { GitHubDouble } from '../doubles/github/index.js';
import { startGitLabDouble, type GitLabDouble } from '../doubles/gitlab/index.js';
import {
  freePort,
  providerServerEnv,
  serverEnv,
  startServer,
  waitFor,
  type SvcProcess,
} from '../e2e/system.js';
import { appDouble, workPipeline } from './pipelines.js';

const PIPELINE = workPipeline(['echo hi']);

interface ApiBuild {
  number: number;
  status: string;
  error?: string;
}

/** One svc server on a fixed port and data folder, so that it can be stopped and started again. */
class Server {
  process: SvcProcess | undefined;
  readonly url: string;
  readonly #env: Record<string, string>;

  constructor(port: number, env: Record<string, string>) {
    this.url = `http://127.0.0.1:${port}`;
    this.#env = env;
  }

  async start(): Promise<void> {
    this.process = await startServer(this.#env);
  }

  async stop(): Promise<void> {
    await this.process?.stop();
  }

  /** SIGKILL: as if the machine died. */
  async kill(): Promise<void> {
    await this.process?.kill();
  }

  /** The number of the newest build of `repo` (the hook answers once its build is stored). */
  async newest(repo: string, token: string): Promise<number> {
    const answer = await call(this, `/api/repos/${repo}/builds`, { token });
    return Math.max(0, ...(answer.json as ApiBuild[]).map((b) => b.number));
  }

  /** Build `number` of `repo` once `done` says so. */
  build(repo: string, token: string, number: number, done: (b: ApiBuild) => boolean): Promise<ApiBuild> {
    return waitFor(
      `build ${number}`,
      async () => {
        const answer = await call(this, `/api/repos/${repo}/builds/${number}`, { token });
        const found = answer.status === 200 ? (answer.json as ApiBuild) : undefined;
        return found !== undefined && done(found) ? found : undefined;
      },
      30_000,
    );
  }
}

/** Sends a webhook and measures how long svc took to answer it. */
async function timed(send: () => Promise<number>): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const status = await send();
  return { status, ms: Date.now() - started };
}

const sha = () => randomBytes(20).toString('hex');

describe('faults: GitHub failing while svc handles webhooks and posts statuses', () => {
  const REPO = 'octocat/app';
  let github: GitHubDouble;
  let server: Server;
  let token = '';
  let hookUrl = '';

  beforeAll(async () => {
    github = await appDouble();
    const port = await freePort();
    server = new Server(port, serverEnv(port, mkdtempSync(join(tmpdir(), 'svc-faults-data-')), github));
    await server.start();
    const session = await loginAs(server, 'octocat');
    token = await tokenOf(server, session);
    await enable(server, session, REPO);
    hookUrl = github.hooks(REPO)[0]?.url ?? '';
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await github?.close();
  });

  const push = (message: string) => {
    const commit = github.commit(REPO, 'main', { '.drone.yml': PIPELINE }, message, 'octocat', sha());
    return { commit, hook: timed(() => github.push(REPO, 'main', hookUrl)) };
  };
  const build = (number: number, done: (b: ApiBuild) => boolean) => server.build(REPO, token, number, done);
  const newest = async (done: (b: ApiBuild) => boolean) => build(await server.newest(REPO, token), done);
  const contentHits = () => github.faultHits().filter((hit) => hit.path.includes('/contents/')).length;
  const statusHits = () => github.faultHits().filter((hit) => hit.path.includes('/statuses/')).length;

  it('retries a config fetch through a closed connection and a 503, and builds', async () => {
    github.fail({ method: 'GET', path: '/contents/', answer: 'close', times: 1 });
    github.fail({ method: 'GET', path: '/contents/', answer: 503, times: 1 });
    const { hook } = push('a flaky provider');
    const answered = await hook;
    expect(answered.status).toBe(200);
    expect((await newest((b) => b.status === 'pending')).error ?? '').toBe('');
    expect(contentHits()).toBe(2);
    console.info(`faults: webhook answered in ${answered.ms} ms through 2 failed config fetches`);
  });

  it('answers the webhook with an error build naming the failure while the provider stays down, and a restart builds once it is back', async () => {
    github.fail({ method: 'GET', path: '/contents/', answer: 502 });
    const down = await push('a provider down').hook;
    expect(down.status).toBe(200);
    expect(down.ms).toBeLessThan(10_000);
    const failed = await newest((b) => b.status === 'error');
    expect(failed.error).toMatch(
      /^cannot read the pipeline file: the git provider failed \(GitHub GET \/api\/v3\/repos\/octocat\/app\/contents\/\.svc\.yml: HTTP 502 .*\(after 3 attempts\)\); restart the build once it answers$/,
    );
    github.recover();

    // A rate limit that resets in two minutes is reported at once, not waited for.
    github.fail({ method: 'GET', path: '/contents/', answer: 429, retryAfter: 120, times: 1 });
    const limited = await push('a provider rate-limiting').hook;
    expect(limited.status).toBe(200);
    expect(limited.ms).toBeLessThan(5_000);
    expect((await newest((b) => b.status === 'error')).error).toMatch(
      /the git provider failed \(GitHub GET \S+: rate limit exhausted; it resets at \S+\)/,
    );

    const restarted = await call(server, `/api/repos/${REPO}/builds/${failed.number}`, {
      method: 'POST',
      token,
    });
    expect(restarted.status).toBe(200);
    const again = (restarted.json as ApiBuild).number;
    expect((await build(again, (b) => b.status === 'pending')).error ?? '').toBe('');
    console.info(
      `faults: webhook answered in ${down.ms} ms with the provider down (error build), ${limited.ms} ms when rate-limited`,
    );
  });

  it('keeps a status the provider does not take and posts only the newest state once it is back', async () => {
    github.fail({ method: 'POST', path: '/statuses/', answer: 503 });
    const { commit, hook } = push('statuses down');
    expect((await hook).status).toBe(200);
    const number = (await newest((b) => b.status === 'pending')).number;
    // The pending status was tried 3 times; cancelling makes a newer state (killed → failure).
    await waitFor('the pending status tried', () => Promise.resolve(statusHits() >= 3 ? true : undefined));
    const cancelled = await call(server, `/api/repos/${REPO}/builds/${number}`, { method: 'DELETE', token });
    expect(cancelled.status).toBe(200);
    await waitFor('the failure status tried', () => Promise.resolve(statusHits() >= 6 ? true : undefined));
    expect(github.statuses(REPO, commit)).toEqual([]);

    github.recover();
    const recovered = Date.now();
    await waitFor(
      'the kept status',
      () => Promise.resolve(github.statuses(REPO, commit).length > 0 ? true : undefined),
      40_000,
    );
    const took = Date.now() - recovered;
    // Posted once, and the superseded pending state never.
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (github.statuses(REPO, commit).length !== 1 || github.statuses(REPO, commit)[0]?.state !== 'failure')
      console.info(
        server.process
          ?.log()
          .split('\n')
          .filter((l) => /status|outbox|cancel/i.test(l))
          .join('\n'),
      );
    expect(github.statuses(REPO, commit).map((s) => [s.state, s.description])).toEqual([
      ['failure', 'Build was killed'],
    ]);
    expect(took).toBeLessThan(30_000);
    console.info(
      `faults: a kept status reached the recovered provider ${Math.round(took / 1000)} s after it recovered`,
    );
  }, 60_000);

  it('posts a kept status after the server was killed and started again', async () => {
    const before = statusHits();
    github.fail({ method: 'POST', path: '/statuses/', answer: 500 });
    const { commit, hook } = push('statuses down, then a restart');
    expect((await hook).status).toBe(200);
    await newest((b) => b.status === 'pending');
    await waitFor('the pending status tried', () =>
      Promise.resolve(statusHits() >= before + 3 ? true : undefined),
    );
    await server.kill();
    github.recover();
    const started = Date.now();
    await server.start();
    await waitFor(
      'the kept status after the restart',
      () => Promise.resolve(github.statuses(REPO, commit).length > 0 ? true : undefined),
      40_000,
    );
    const took = Date.now() - started;
    expect(github.statuses(REPO, commit).map((s) => s.state)).toEqual(['pending']);
    expect(took).toBeLessThan(30_000);
    console.info(
      `faults: a status kept before a restart was posted ${Math.round(took / 1000)} s after the new start`,
    );
  }, 60_000);
});

describe('faults: GitLab failing while svc refreshes an expired token', () => {
  const REPO = 'alice/demo';
  let gitlab: GitLabDouble;
  let server: Server;
  let token = '';
  let hookUrl = '';

  /** The browser's OAuth login at svc (svc's /login, the double's authorize page, back). */
  async function oauthLogin(login: string): Promise<BrowserSession> {
    const start = await fetch(`${server.url}/login`, { redirect: 'manual' });
    const authorize = new URL(start.headers.get('location') ?? '');
    authorize.searchParams.set('login', login);
    const granted = await fetch(authorize, { redirect: 'manual' });
    const back = await fetch(granted.headers.get('location') ?? '', {
      redirect: 'manual',
      headers: { cookie: cookieHeader(start.headers.getSetCookie()) },
    });
    if (back.status !== 302) throw new Error(`the login answered ${back.status}: ${await back.text()}`);
    const setCookies = back.headers.getSetCookie();
    const cookie = cookieHeader(setCookies.filter((value) => !value.startsWith('svc_login_state=')));
    const me = await call(server, '/api/user', { session: { cookie, csrf: '', setCookies } });
    return { cookie, csrf: (me.json as { csrf: string }).csrf, setCookies };
  }

  beforeAll(async () => {
    gitlab = await startGitLabDouble();
    gitlab.addUser({ login: 'alice', email: 'alice@example.com' });
    gitlab.addRepo({ owner: 'alice', name: 'demo', admins: ['alice'] });
    const port = await freePort();
    server = new Server(
      port,
      providerServerEnv(port, mkdtempSync(join(tmpdir(), 'svc-faults-gitlab-')), {
        SVC_SCMD_SERVER: gitlab.url,
        SVC_SCMD_CLIENT_ID: gitlab.clientId,
        SVC_SCMD_CLIENT_SECRET: gitlab.clientSecret,
      }),
    );
    await server.start();
    const session = await oauthLogin('alice');
    token = await tokenOf(server, session);
    await enable(server, session, REPO);
    hookUrl = gitlab.hooks(REPO)[0]?.url ?? '';
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await gitlab?.close();
  });

  const push = (message: string) => {
    gitlab.commit(REPO, 'main', { '.drone.yml': PIPELINE }, message, 'alice', sha());
    return timed(() => gitlab.push(REPO, 'main', hookUrl));
  };
  const build = (number: number, done: (b: ApiBuild) => boolean) => server.build(REPO, token, number, done);
  const tokenHits = () => gitlab.faultHits().filter((hit) => hit.path === '/oauth/token').length;

  it('retries a token refresh the provider failed, and reports one it keeps failing without losing the login', async () => {
    // The two-hour token expires at GitLab: svc's read of the file is refused, svc refreshes.
    gitlab.advance(7_201_000);
    gitlab.fail({ method: 'POST', path: '/oauth/token', answer: 503, times: 2 });
    expect((await push('refresh through two 503s')).status).toBe(200);
    expect((await build(1, (b) => b.status === 'pending')).error ?? '').toBe('');
    expect(tokenHits()).toBe(2);

    gitlab.advance(7_201_000);
    gitlab.fail({ method: 'POST', path: '/oauth/token', answer: 502 });
    const down = await push('refresh while GitLab is down');
    expect(down.status).toBe(200);
    expect((await build(2, (b) => b.status === 'error')).error).toMatch(
      /^cannot read the pipeline file: the git provider failed \(GitLab POST \/oauth\/token: HTTP 502 \(after 3 attempts\)\)/,
    );

    // Back up: the refresh token was never used up, so restarting the build refreshes and builds.
    gitlab.recover();
    const restarted = await call(server, `/api/repos/${REPO}/builds/2`, { method: 'POST', token });
    expect(restarted.status).toBe(200);
    expect(
      (await build((restarted.json as ApiBuild).number, (b) => b.status === 'pending')).error ?? '',
    ).toBe('');
    console.info(`faults: webhook answered in ${down.ms} ms while the token refresh failed`);
  }, 60_000);
});
