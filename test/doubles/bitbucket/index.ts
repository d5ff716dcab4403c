/**
 * # Bitbucket Cloud API double
 *
 * A real HTTP server on 127.0.0.1 (random port) that answers like bitbucket.org and api.bitbucket.org
 * (both on one port) for the calls svc makes, with in-memory state, built from Atlassian's public
 * documentation (REST API 2.0 reference, "OAuth 2.0", "Event payloads", "Manage webhooks", API
 * request limits) as it stands after the 2026 removal of cross-workspace listings (CHANGE-2770: those
 * answer 410). See the routes files for the details (diffstats: routes-changes.ts); unknown API paths
 * are recorded (`unknownCalls`).
 *
 * Not modelled: projects, groups, annotated-tag fields, pull request refs (Bitbucket has none), scopes
 * (every token may do what its user may).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { ForgeState, type NewUser } from '../forge/state.js';
import { deliver, pullRequestPayload, pushPayload } from './deliveries.js';
import type { Env } from './env.js';
import { oauthRoutes } from './routes-oauth.js';
import { changeRoutes } from './routes-changes.js';
import { routes } from './routes.js';
import { createServer } from './server.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';
import { Faults } from '../forge/faults.js';

export interface BitbucketDouble extends ForgeDouble {
  readonly key: string;
  readonly secret: string;
  addUser(user: NewUser): { login: string; token: string };
  pushTag(fullName: string, tag: string, url: string): Promise<number>;
  pullRequest(
    fullName: string,
    head: string,
    url: string,
    options?: { fork?: string; author?: string },
  ): Promise<{ id: number; sha: string; status: number }>;
  hooks(fullName: string): { url: string; secret: string; events: string[] }[];
  statuses(
    fullName: string,
    sha: string,
  ): { state: string; context: string; description: string; target_url: string }[];
  exhaustRateLimit(resetAt: Date): void;
  advance(ms: number): void;
}

export async function startBitbucketDouble(): Promise<BitbucketDouble> {
  const state = new ForgeState();
  let offset = 0;
  const env: Env = {
    state,
    urls: { web: '', api: '' },
    app: { key: randomBytes(9).toString('base64url'), secret: randomBytes(24).toString('base64url') },
    codes: new Map(),
    access: new Map(),
    refresh: new Map(),
    now: () => Date.now() + offset,
    limitedUntil: 0,
    unknown: [],
  };
  const faults = new Faults();
  const server = createServer(env, oauthRoutes(env), [...routes(env), ...changeRoutes(env)], faults);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  env.urls.web = url;
  env.urls.api = `${url}/2.0`;
  const repoOf = (fullName: string) => state.repoByFullName(fullName);
  const hookOf = (fullName: string, target: string) =>
    repoOf(fullName).hooks.find((h) => h.url === target)?.id ?? 0;

  return {
    url,
    key: env.app.key,
    secret: env.app.secret,
    addUser: (user) => {
      state.addUser(user);
      return { login: user.login, token: state.newToken(user.login, '', 32) };
    },
    addRepo: (repo) => state.addRepo(repo, 'main'),
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    push: (fullName, branch, target, opts) => {
      const repo = repoOf(fullName);
      const payload = pushPayload(env, repo, 'branch', branch);
      return deliver(
        target,
        'repo:push',
        payload,
        state.hookSecret(repo, target, opts?.secret),
        hookOf(fullName, target),
      );
    },
    pushTag: (fullName, tag, target) => {
      const repo = repoOf(fullName);
      return deliver(
        target,
        'repo:push',
        pushPayload(env, repo, 'tag', tag),
        state.hookSecret(repo, target),
        hookOf(fullName, target),
      );
    },
    async pullRequest(fullName, head, target, opts = {}) {
      const repo = repoOf(fullName);
      const from = opts.fork === undefined ? repo : repoOf(opts.fork);
      // Pull request ids count per destination repository, as the double's pull request numbers do.
      const { number: id, commit } = state.openPull(repo, from, head);
      const payload = pullRequestPayload(env, repo, from, head, id, opts.author ?? from.owner);
      const status = await deliver(
        target,
        'pullrequest:created',
        payload,
        state.hookSecret(repo, target),
        hookOf(fullName, target),
      );
      return { id, sha: commit.sha, status };
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
