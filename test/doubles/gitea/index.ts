/**
 * # Gitea / Forgejo API double
 *
 * A real HTTP(S) server on 127.0.0.1 (random port) that answers like Gitea (1.17 and later; with
 * `forgejo`, refresh tokens are single use, Forgejo's default) for the calls svc makes, with in-memory
 * state, built from Gitea's public documentation (API swagger document, "OAuth2 provider",
 * "Webhooks") and `modules/structs`:
 *
 * - OAuth2: `GET /login/oauth/authorize` (acts at once for the double-only `login` parameter's user,
 *   as for an app already granted), `POST /login/oauth/access_token` (form or JSON; client credentials
 *   in the body or HTTP Basic; 400 with `error` for every refusal; single-use codes; `refresh_token`
 *   grant). Access tokens expire after `lifetime` seconds of the double's clock.
 * - Authentication: `Authorization: token <t>` or `Bearer <t>`; 401 `token is required` without one,
 *   401 for an unknown or expired one.
 * - Users and organizations: `GET /user`, `GET /user/orgs`, `GET /orgs/{org}/members/{u}`,
 *   `GET /users/{u}/orgs/{org}/permissions`.
 * - Repositories: `GET /user/repos`, `GET /repos/{o}/{r}`, `GET …/raw/{path}?ref=`,
 *   `GET …/git/commits/{sha}`, `GET …/branches/{branch}`.
 * - Changes: `GET …/compare/{basehead}` (commits with their files), `GET …/pulls/{index}/files`.
 * - Hooks (`/repos/{o}/{r}/hooks`, admins only) and statuses (`POST /repos/{o}/{r}/statuses/{sha}`).
 * - Pagination: `page` and `limit` (default 30, at most 50), `Link` (comma-joined, no space) and
 *   `X-Total-Count` on every list.
 * - Deliveries: `push` (branches; tags as `push` and `create`), `pull_request` (`X-Gitea-Event-Type`
 *   `pull_request` or `pull_request_sync`), signed in `X-Gitea-Signature` and its twins.
 *
 * Unknown API paths answer Gitea's 404 JSON and are recorded (`unknownCalls`). Not modelled: scopes
 * (every token may do everything its user may), organization hooks, the contents API, form deliveries.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ForgeState } from '../forge/state.js';
import { createPayload, deliver, pullRequestPayload, pushPayload } from './deliveries.js';
import type { Env } from './env.js';
import { changeRoutes } from './routes-changes.js';
import { hookRoutes } from './routes-hooks.js';
import { oauthRoutes } from './routes-oauth.js';
import { repoRoutes } from './routes-repos.js';
import { userRoutes } from './routes-user.js';
import { teamRoutes, type GiteaTeam } from './routes-teams.js';
import { createServer } from './server.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';
import { Faults } from '../forge/faults.js';

/** A running Gitea double. */
export interface GiteaDouble extends ForgeDouble {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Adds an account with a personal access token (which never expires), returned. */
  /** Adds a team to an organization with these members (logins); returns its id. */
  addTeam(org: string, name: string, members: string[]): number;
  addUser(user: { login: string; email?: string; orgs?: string[]; orgAdmin?: string[] }): {
    login: string;
    token: string;
  };
  /** Sends what Gitea sends for a pushed tag: a `push` of `refs/tags/<tag>`, then a `create`. */
  pushTag(fullName: string, tag: string, url: string): Promise<number[]>;
  /** Opens a pull request from `head` (of `fork`, or the repository itself) and sends its webhook. */
  pullRequest(
    fullName: string,
    head: string,
    url: string,
    options?: { fork?: string; action?: string; author?: string },
  ): Promise<{ number: number; sha: string; status: number }>;
  hooks(fullName: string): { url: string; secret: string; events: string[]; active: boolean }[];
  /** The statuses posted for a commit, oldest first. */
  statuses(
    fullName: string,
    sha: string,
  ): { state: string; context: string; description: string; target_url: string }[];
  /** Moves the double's clock (to expire access tokens). */
  advance(ms: number): void;
  /** How many access tokens the token endpoint handed out. */
  issuedTokens(): number;
}

export interface GiteaDoubleOptions {
  tls?: { key: string; cert: string };
  /** Forgejo's behaviour: refresh tokens are single use. */
  forgejo?: boolean;
  /** Access token lifetime in seconds (default 3600). */
  lifetime?: number;
}

/** Starts a Gitea double on a random loopback port. */
export async function startGiteaDouble(options: GiteaDoubleOptions = {}): Promise<GiteaDouble> {
  const state = new ForgeState();
  let offset = 0;
  const env: Env = {
    state,
    urls: { web: '', api: '' },
    app: {
      clientId: randomBytes(16).toString('hex'),
      clientSecret: `gto_${randomBytes(20).toString('hex')}`,
    },
    codes: new Map(),
    access: new Map(),
    refresh: new Map(),
    rotate: options.forgejo === true,
    lifetime: options.lifetime ?? 3600,
    now: () => Date.now() + offset,
    unknown: [],
  };
  const teams: GiteaTeam[] = [];
  const api = [
    ...userRoutes(env),
    ...teamRoutes(env, teams),
    ...repoRoutes(env),
    ...changeRoutes(env),
    ...hookRoutes(env),
  ];
  const faults = new Faults();
  const server = createServer(env, oauthRoutes(env), api, options.tls, faults);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  env.urls.web = url;
  env.urls.api = `${url}/api/v1`;
  const repoOf = (fullName: string) => state.repoByFullName(fullName);

  return {
    url,
    clientId: env.app.clientId,
    clientSecret: env.app.clientSecret,
    addUser: (user) => {
      state.addUser(user);
      return { login: user.login, token: state.newToken(user.login, '', 20) };
    },
    addRepo: (repo) => state.addRepo(repo, 'main'),
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    push: (fullName, branch, target, opts) => {
      const repo = repoOf(fullName);
      return deliver(
        target,
        'push',
        'push',
        pushPayload(env, repo, 'heads', branch),
        state.hookSecret(repo, target, opts?.secret),
      );
    },
    async pushTag(fullName, tag, target) {
      const repo = repoOf(fullName);
      const secret = state.hookSecret(repo, target);
      const pushed = await deliver(target, 'push', 'push', pushPayload(env, repo, 'tags', tag), secret);
      const created = await deliver(target, 'create', 'create', createPayload(env, repo, tag), secret);
      return [pushed, created];
    },
    async pullRequest(fullName, head, target, opts = {}) {
      const repo = repoOf(fullName);
      const from = opts.fork === undefined ? repo : repoOf(opts.fork);
      const { number, commit } = state.openPull(repo, from, head);
      const action = opts.action ?? 'opened';
      const payload = pullRequestPayload(env, repo, from, head, number, action, opts.author ?? from.owner);
      const type = action === 'synchronized' ? 'pull_request_sync' : 'pull_request';
      const status = await deliver(target, 'pull_request', type, payload, state.hookSecret(repo, target));
      return { number, sha: commit.sha, status };
    },
    hooks: (fullName) =>
      repoOf(fullName).hooks.map((h) => ({
        url: h.url,
        secret: h.secret,
        events: [...h.events],
        active: h.active,
      })),
    statuses: (fullName, sha) =>
      (repoOf(fullName).statuses.get(sha) ?? []).map((s) => ({
        state: s.state,
        context: s.context,
        description: s.description,
        target_url: s.target_url,
      })),
    advance: (ms) => {
      offset += ms;
    },
    issuedTokens: () => env.access.size,
    unknownCalls: () => env.unknown,
    fail: (rule) => faults.fail(rule),
    recover: () => faults.recover(),
    faultHits: () => faults.hits,
    addTeam(org, name, members) {
      const id = 3_000 + teams.length;
      teams.push({ id, org, name, members: new Set(members.map((m) => m.toLowerCase())) });
      return id;
    },
    close: () => closeServer(server),
  };
}
