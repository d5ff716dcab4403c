/**
 * # GitLab API double
 *
 * A real HTTP(S) server on 127.0.0.1 (random port) that answers like GitLab (REST API v4, its
 * Doorkeeper OAuth2 provider and project webhooks) for the calls svc makes, with in-memory state,
 * built from GitLab's public documentation (docs.gitlab.com: api/oauth2, api/users, api/groups,
 * api/members, api/projects, api/repository_files, api/commits, api/branches, api/repositories
 * (compare), api/merge_requests (a merge request, its diffs), api/project_webhooks,
 * user/project/integrations/webhook_events, rate limits). See each routes file for the details;
 * unknown API paths answer `{"error":"404 Not Found"}` and are recorded (`unknownCalls`).
 *
 * Not modelled: subgroups beyond full paths, shared groups, keyset pagination, scopes other than
 * `api` (every token may do what its user may), notes, pipelines.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ForgeState, type NewUser } from '../forge/state.js';
import { deliver, mergeRequestPayload, pushPayload } from './deliveries.js';
import type { Env } from './env.js';
import { changeRoutes } from './routes-changes.js';
import { hookRoutes } from './routes-hooks.js';
import { oauthRoutes } from './routes-oauth.js';
import { routes } from './routes.js';
import { createServer } from './server.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';
import { Faults, type FaultHit, type FaultRule } from '../forge/faults.js';

export interface GitLabDouble extends ForgeDouble {
  readonly clientId: string;
  readonly clientSecret: string;
  /** Adds an account with a personal access token (never expires), returned. */
  addUser(user: NewUser): { login: string; token: string };
  pushTag(fullName: string, tag: string, url: string): Promise<number>;
  /** Opens a merge request from `head` (of `fork`, or the project itself) and sends its hook (`open`). */
  mergeRequest(
    fullName: string,
    head: string,
    url: string,
    options?: { fork?: string; action?: string; author?: string },
  ): Promise<{ iid: number; sha: string; status: number }>;
  hooks(fullName: string): { url: string; secret: string; events: string[] }[];
  statuses(
    fullName: string,
    sha: string,
  ): { state: string; context: string; description: string; target_url: string }[];
  /** Makes the project's answers show no access level, as for access inherited from a parent group. */
  inheritAccess(fullName: string): void;
  /** Every API call answers 429 until `resetAt`. */
  exhaustRateLimit(resetAt: Date): void;
  /** Moves the double's clock (to expire access tokens). */
  advance(ms: number): void;
  /** Answers matching requests with a failure instead, `times` times or until `recover` (forge/faults.ts). */
  fail(rule: FaultRule): void;
  recover(): void;
  faultHits(): readonly FaultHit[];
}

export async function startGitLabDouble(
  options: { tls?: { key: string; cert: string } } = {},
): Promise<GitLabDouble> {
  const state = new ForgeState();
  let offset = 0;
  const env: Env = {
    state,
    urls: { web: '', api: '' },
    app: {
      clientId: randomBytes(32).toString('hex'),
      clientSecret: `gloas-${randomBytes(32).toString('hex')}`,
    },
    codes: new Map(),
    access: new Map(),
    refresh: new Map(),
    now: () => Date.now() + offset,
    limitedUntil: 0,
    groups: new Map(),
    inherited: new Set(),
    unknown: [],
  };
  const faults = new Faults();
  const server = createServer(
    env,
    oauthRoutes(env),
    [...routes(env), ...changeRoutes(env), ...hookRoutes(env)],
    options.tls,
    faults,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  env.urls.web = url;
  env.urls.api = `${url}/api/v4`;
  const repoOf = (fullName: string) => state.repoByFullName(fullName);

  return {
    url,
    clientId: env.app.clientId,
    clientSecret: env.app.clientSecret,
    addUser: (user) => {
      state.addUser(user);
      return { login: user.login, token: state.newToken(user.login, 'glpat-', 10) };
    },
    addRepo: (repo) => state.addRepo(repo, 'main'),
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    push: (fullName, branch, target, opts) => {
      const repo = repoOf(fullName);
      return deliver(
        env,
        target,
        'Push Hook',
        pushPayload(env, repo, 'heads', branch),
        state.hookSecret(repo, target, opts?.secret),
      );
    },
    pushTag: (fullName, tag, target) => {
      const repo = repoOf(fullName);
      return deliver(
        env,
        target,
        'Tag Push Hook',
        pushPayload(env, repo, 'tags', tag),
        state.hookSecret(repo, target),
      );
    },
    async mergeRequest(fullName, head, target, opts = {}) {
      const repo = repoOf(fullName);
      const from = opts.fork === undefined ? repo : repoOf(opts.fork);
      // Merge request iids count per target project, as the double's pull request numbers do.
      const { number: iid, commit } = state.openPull(repo, from, head);
      const payload = mergeRequestPayload(
        env,
        repo,
        from,
        head,
        iid,
        opts.action ?? 'open',
        opts.author ?? from.owner,
      );
      return {
        iid,
        sha: commit.sha,
        status: await deliver(env, target, 'Merge Request Hook', payload, state.hookSecret(repo, target)),
      };
    },
    hooks: (fullName) =>
      repoOf(fullName).hooks.map((h) => ({ url: h.url, secret: h.secret, events: [...h.events] })),
    statuses: (fullName, sha) =>
      (repoOf(fullName).statuses.get(sha) ?? []).map((s) => ({
        state: s.state,
        context: s.context,
        description: s.description,
        target_url: s.target_url,
      })),
    inheritAccess: (fullName) => void env.inherited.add(fullName.toLowerCase()),
    exhaustRateLimit: (resetAt) => {
      env.limitedUntil = resetAt.getTime();
    },
    advance: (ms) => {
      offset += ms;
    },
    unknownCalls: () => env.unknown,
    fail: (rule) => faults.fail(rule),
    recover: () => faults.recover(),
    faultHits: () => faults.hits,
    close: () => closeServer(server),
  };
}
