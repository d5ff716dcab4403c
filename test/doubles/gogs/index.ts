/**
 * # Gogs API double
 *
 * A real HTTP(S) server on 127.0.0.1 (random port) that answers like a Gogs server (0.13 and later)
 * for the calls svc makes, with in-memory state, built from Gogs' public documentation (the API
 * reference at gogs.io and github.com/gogs/docs-api, the webhook docs, the JSON types of
 * gogs/go-gogs-client):
 *
 * - Authentication: `Authorization: token <token>` (no `Bearer`; an unknown token is anonymous), HTTP
 *   Basic with the password on `/users/{u}/tokens` only. Refusals of missing credentials (401), rights
 *   (403) and unknown or hidden resources (404) have an empty body; unknown paths answer Gogs' HTML 404
 *   page and are recorded (`unknownCalls`).
 * - Users and organizations: `GET /user`, `GET /users/{u}`, `GET /user/orgs` (names in `username`).
 * - Access tokens: `GET|POST /users/{u}/tokens` (Basic): the list shows hashes, not tokens, and a
 *   second token of the same name is 422, as from Gogs 0.13 on.
 * - Repositories: `GET /user/repos` (owned and shared, one answer), `GET /repos/{o}/{r}` with
 *   `permissions` {admin, push, pull}, `GET …/raw/{ref}/{path}`, `GET …/commits/{sha}`,
 *   `GET …/branches/{branch}`.
 * - Hooks: `GET|POST /repos/{o}/{r}/hooks`, `PATCH|DELETE …/hooks/{id}` (admins only).
 * - Deliveries: `push` (branches), `create` (tags: Gogs sends no push for them), `pull_request`
 *   (no commit shas), signed with `X-Gogs-Signature`.
 *
 * Not modelled: there is no commit status API in Gogs, so none here; no rate limits (Gogs has none);
 * organization teams; `GET …/contents`; `form` deliveries.
 */
import type { AddressInfo } from 'node:net';
import { ForgeState } from '../forge/state.js';
import { deliver, pullRequestPayload, pushPayload, tagPayload } from './deliveries.js';
import type { Env } from './env.js';
import { hookRoutes } from './routes-hooks.js';
import { repoRoutes } from './routes-repos.js';
import { userRoutes } from './routes-user.js';
import { createServer } from './server.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';
import { Faults } from '../forge/faults.js';

/** A running Gogs double. */
export interface GogsDouble extends ForgeDouble {
  /** Adds an account with its password and one access token (named `test`), which it returns. */
  addUser(user: { login: string; password?: string; email?: string; orgs?: string[] }): {
    login: string;
    token: string;
  };
  /** Sends the `create` webhook of a tag, Gogs' only delivery for a pushed tag. */
  pushTag(fullName: string, tag: string, url: string, options?: { secret?: string }): Promise<number>;
  /**
   * Opens a pull request from `head` (a branch of `fork`, or of the repository itself) and sends its
   * `pull_request` webhook; Gogs keeps `refs/pull/N/head` in the base repository.
   */
  pullRequest(
    fullName: string,
    head: string,
    url: string,
    options?: { fork?: string; action?: string; author?: string },
  ): Promise<{ number: number; sha: string; status: number }>;
  /** The repository's hooks, with their secrets. */
  hooks(fullName: string): { url: string; secret: string; events: string[]; active: boolean }[];
  /** The names of the user's access tokens. */
  tokenNames(login: string): string[];
}

/** Starts a Gogs double on a random loopback port; `tls` serves https (for SKIP_VERIFY tests). */
export async function startGogsDouble(
  options: { tls?: { key: string; cert: string } } = {},
): Promise<GogsDouble> {
  const state = new ForgeState();
  const env: Env = { state, urls: { web: '', api: '' }, passwords: new Map(), named: [], unknown: [] };
  const faults = new Faults();
  const server = createServer(
    env,
    [...userRoutes(env), ...repoRoutes(env), ...hookRoutes(env)],
    options.tls,
    faults,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  env.urls.web = url;
  env.urls.api = `${url}/api/v1`;
  const repoOf = (fullName: string) => state.repoByFullName(fullName);

  return {
    url,
    addUser: (user) => {
      state.addUser(user);
      env.passwords.set(user.login.toLowerCase(), user.password ?? `${user.login}-password`);
      const token = state.newToken(user.login, '', 20);
      env.named.push({ login: user.login, name: 'test', token });
      return { login: user.login, token };
    },
    addRepo: (repo) => state.addRepo(repo, 'master'),
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    push: (fullName, branch, target, opts) => {
      const repo = repoOf(fullName);
      return deliver(
        target,
        'push',
        pushPayload(env, repo, branch),
        state.hookSecret(repo, target, opts?.secret),
      );
    },
    pushTag: (fullName, tag, target, opts) => {
      const repo = repoOf(fullName);
      return deliver(
        target,
        'create',
        tagPayload(env, repo, tag),
        state.hookSecret(repo, target, opts?.secret),
      );
    },
    async pullRequest(fullName, head, target, opts = {}) {
      const repo = repoOf(fullName);
      const from = opts.fork === undefined ? repo : repoOf(opts.fork);
      const { number, commit } = state.openPull(repo, from, head);
      const author = opts.author ?? from.owner;
      const payload = pullRequestPayload(env, repo, from, head, number, opts.action ?? 'opened', author);
      const status = await deliver(target, 'pull_request', payload, state.hookSecret(repo, target));
      return { number, sha: commit.sha, status };
    },
    hooks: (fullName) =>
      repoOf(fullName).hooks.map((h) => ({
        url: h.url,
        secret: h.secret,
        events: [...h.events],
        active: h.active,
      })),
    tokenNames: (login) =>
      env.named.filter((t) => t.login.toLowerCase() === login.toLowerCase()).map((t) => t.name),
    unknownCalls: () => env.unknown,
    fail: (rule) => faults.fail(rule),
    recover: () => faults.recover(),
    faultHits: () => faults.hits,
    close: () => closeServer(server),
  };
}
