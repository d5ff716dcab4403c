/**
 * # Bitbucket Server / Data Center double
 *
 * A real HTTP(S) server on 127.0.0.1 (random port) that answers like a self-hosted Bitbucket Server
 * or Data Center (default version 8.19.0) for the calls a CI server makes, with in-memory state,
 * built from Atlassian's public documentation (REST API 1.0 reference, "Updating build status for
 * commits", "Event payload", "Manage webhooks", "Improving instance stability with rate limiting",
 * application links with OAuth 1.0a RSA-SHA1) and RFC 5849:
 *
 * - OAuth 1.0a with RSA-SHA1: every signed request is verified against the consumer's public key
 *   (oauth-verify.ts); the dance under `/plugins/servlet/oauth/` (routes-oauth.ts); refusals as
 *   `oauth_problem` reports (server.ts).
 * - `GET /plugins/servlet/applinks/whoami`, users, projects, repositories (routes-repos.ts), git
 *   data (routes-git.ts), changes of a compare or a pull request (routes-changes.ts), webhooks
 *   (routes-hooks.ts), build statuses (routes-builds.ts).
 * - Deliveries: `repo:refs_changed`, `pr:opened`, `pr:from_ref_updated` (deliveries.ts).
 * - Rate limiting: 429 with the Data Center rate-limit headers (server.ts).
 *
 * Unknown paths are recorded (`unknownCalls`). Not modelled: context paths, personal access tokens
 * and basic auth, OAuth 2.0 application links, groups, forks' `origin`, merging or declining pull
 * requests, git over HTTP (a test serves git itself: `NewRepo.cloneUrl`).
 */
import { generateKeyPairSync } from 'node:crypto';
import { Faults } from '../forge/faults.js';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '../../support/self-signed.js';
import { ForgeState, type Commit, type NewUser, type Repo } from '../forge/state.js';
import { ensureProject } from './access.js';
import { actor, deliver, pullRequestEvent, refsChanged, ZEROS, type RefChange } from './deliveries.js';
import type { Env, PullRequest } from './env.js';
import { buildRoutes } from './routes-builds.js';
import { changeRoutes } from './routes-changes.js';
import { gitRoutes } from './routes-git.js';
import { hookRoutes } from './routes-hooks.js';
import { alnum, issueAccessToken, oauthRoutes } from './routes-oauth.js';
import { repoRoutes } from './routes-repos.js';
import { createServer, whoami } from './server.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';

export interface BitbucketServerDouble extends ForgeDouble {
  /** The application link's consumer key, and the consumer's RSA private key as PKCS#1 PEM ("BEGIN RSA PRIVATE KEY"); the double keeps the public key and verifies every signature with it. */
  readonly consumerKey: string;
  readonly privateKeyPem: string;
  /** `orgs` = project keys the user may read (PROJECT_READ), `orgAdmin` = project keys they administer (PROJECT_ADMIN, implies read); those projects are created on first use. Returns an access token issued to that user for this consumer (as if they had logged in). The user's slug is `login` (lower case); name = login; emailAddress = email ?? `${login}@example.com`; displayName e.g. capitalised login. */
  addUser(user: NewUser): { login: string; token: string };
  /** `repo:refs_changed` with a TAG ref change (ADD). */
  pushTag(fullName: string, tag: string, url: string): Promise<number>;
  /** `repo:refs_changed` with a DELETE change of the branch (toHash 40 zeros). */
  deleteBranch(fullName: string, branch: string, url: string): Promise<number>;
  /** Opens a pull request from `head` (of `fork` when given, else of fullName) to the default branch and sends `pr:opened`; `refs/pull-requests/{id}/from` exists in state afterwards. */
  pullRequest(
    fullName: string,
    head: string,
    url: string,
    options?: { fork?: string; author?: string },
  ): Promise<{ id: number; sha: string; status: number }>;
  /** Sends `pr:from_ref_updated` for an open pull request after new commits on its source branch. */
  updatePullRequest(fullName: string, id: number, url: string): Promise<{ sha: string; status: number }>;
  hooks(fullName: string): { url: string; secret: string; events: string[] }[];
  /** Build statuses posted for the commit, oldest first. */
  statuses(sha: string): { state: string; key: string; name: string; url: string; description: string }[];
  /** Plays the user's browser on the authorize page: GET authorizeUrl as `login` (which grants, or denies with deny: true), returns the URL it redirects to (the consumer's callback with oauth_token and oauth_verifier). */
  authorize(authorizeUrl: string, login: string, options?: { deny?: boolean }): Promise<URL>;
  /** Makes every REST call answer 429 as rate limited until `resetAt` (as documented for Data Center rate limiting). */
  exhaustRateLimit(resetAt: Date): void;
  /** Moves the double's clock (token expiry, timestamps). */
  advance(ms: number): void;
}

/** GETs `url` without following redirects (accepting a self-signed certificate) and answers `Location`. */
function redirectOf(url: URL): Promise<URL> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      res.resume();
      const location = res.headers.location;
      if (res.statusCode !== 302 || location === undefined)
        reject(new Error(`authorize page answered ${res.statusCode ?? 0} without a redirect`));
      else resolve(new URL(location));
    };
    const req =
      url.protocol === 'https:'
        ? httpsGet(url, { rejectUnauthorized: false }, onResponse)
        : httpGet(url, onResponse);
    req.on('error', reject);
  });
}

/** Copies the commits of `sha` (and its ancestors) from a fork into the target repository. */
function copyCommits(target: Repo, from: Repo, sha: string): void {
  for (let at: string | undefined = sha; at !== undefined && !target.commits.has(at);) {
    const commit: Commit | undefined = from.commits.get(at);
    if (commit === undefined) break;
    target.commits.set(at, commit);
    at = commit.parent;
  }
}

export async function startBitbucketServerDouble(
  options: { version?: string; https?: boolean } = {},
): Promise<BitbucketServerDouble> {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const state = new ForgeState();
  let offset = 0;
  const env: Env = {
    state,
    url: '',
    version: (options.version ?? '8.19.0').split('.').map(Number),
    consumer: { key: `svc-${alnum(12)}`, publicKey },
    projects: new Map(),
    requestTokens: new Map(),
    accessTokens: new Map(),
    nonces: new Set(),
    hookNames: new Map(),
    statuses: new Map(),
    statusLog: new Map(),
    pulls: new Map(),
    now: () => Date.now() + offset,
    limitedUntil: 0,
    unknown: [],
  };
  const routes = [
    whoami,
    ...repoRoutes(env),
    ...gitRoutes(env),
    ...changeRoutes(env),
    ...hookRoutes(env),
    ...buildRoutes(env),
  ];
  const tls = options.https === true ? selfSignedCertificate() : undefined;
  const faults = new Faults();
  const server = createServer(env, oauthRoutes(env), routes, tls, faults);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  env.url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  const repoOf = (fullName: string) => state.repoByFullName(fullName);

  /** Sends to `url` if its hook takes the event (0 when it does not: nothing is sent). */
  const send = (repo: Repo, url: string, event: string, payload: unknown, secret?: string) => {
    const hook = repo.hooks.find((h) => h.url === url);
    if (hook === undefined) {
      if (secret === undefined)
        throw new Error(`Bitbucket Server double: ${repo.owner}/${repo.name} has no hook for ${url}`);
      return deliver(url, event, payload, secret);
    }
    if (!hook.active || !hook.events.includes(event)) return Promise.resolve(0);
    return deliver(url, event, payload, secret ?? hook.secret);
  };
  const refs = (repo: Repo, url: string, change: RefChange, author?: string, secret?: string) =>
    send(repo, url, 'repo:refs_changed', refsChanged(env, repo, change, actor(env, repo, author)), secret);
  const pullOf = (repo: Repo, id: number): PullRequest => {
    const pull = env.pulls.get(`${repo.id}/${id}`);
    if (pull === undefined)
      throw new Error(`Bitbucket Server double: no pull request ${id} in ${repo.owner}/${repo.name}`);
    return pull;
  };

  return {
    url: env.url,
    consumerKey: env.consumer.key,
    privateKeyPem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    addUser: (user) => {
      state.addUser(user);
      // A grant on a project means the project exists.
      for (const key of [...(user.orgs ?? []), ...(user.orgAdmin ?? [])]) ensureProject(env, key);
      return { login: user.login, token: issueAccessToken(env, user.login).oauth_token ?? '' };
    },
    addRepo: (repo) => {
      ensureProject(env, repo.owner);
      return state.addRepo(repo, 'main');
    },
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    push: (fullName, branch, url, opts) => {
      const repo = repoOf(fullName);
      const head = repo.commits.get(repo.branches.get(branch) ?? '');
      if (head === undefined) throw new Error(`Bitbucket Server double: no branch ${branch} in ${fullName}`);
      const before = head.branchBefore;
      const change: RefChange = {
        kind: 'BRANCH',
        name: branch,
        fromHash: before ?? ZEROS,
        toHash: head.sha,
        type: before === undefined ? 'ADD' : 'UPDATE',
      };
      return refs(repo, url, change, head.author, opts?.secret);
    },
    pushTag: (fullName, tag, url) => {
      const repo = repoOf(fullName);
      const sha = repo.tags.get(tag);
      if (sha === undefined) throw new Error(`Bitbucket Server double: no tag ${tag} in ${fullName}`);
      const change: RefChange = { kind: 'TAG', name: tag, fromHash: ZEROS, toHash: sha, type: 'ADD' };
      return refs(repo, url, change, repo.commits.get(sha)?.author);
    },
    deleteBranch: (fullName, branch, url) => {
      const repo = repoOf(fullName);
      const sha = repo.branches.get(branch);
      if (sha === undefined) throw new Error(`Bitbucket Server double: no branch ${branch} in ${fullName}`);
      repo.branches.delete(branch);
      return refs(repo, url, { kind: 'BRANCH', name: branch, fromHash: sha, toHash: ZEROS, type: 'DELETE' });
    },
    async pullRequest(fullName, head, url, opts = {}) {
      const repo = repoOf(fullName);
      const from = opts.fork === undefined ? repo : repoOf(opts.fork);
      const { number, commit } = state.openPull(repo, from, head);
      const now = env.now();
      const pull: PullRequest = {
        id: number,
        repo,
        from,
        head,
        author: opts.author ?? actor(env, from).login,
        title: commit.message.split('\n')[0] ?? head,
        created: now,
        updated: now,
        version: 0,
        fromHash: commit.sha,
      };
      env.pulls.set(`${repo.id}/${number}`, pull);
      const status = await send(repo, url, 'pr:opened', pullRequestEvent(env, pull));
      return { id: number, sha: commit.sha, status };
    },
    async updatePullRequest(fullName, id, url) {
      const repo = repoOf(fullName);
      const pull = pullOf(repo, id);
      const sha = pull.from.branches.get(pull.head);
      if (sha === undefined)
        throw new Error(`Bitbucket Server double: the source branch ${pull.head} is gone`);
      copyCommits(repo, pull.from, sha);
      repo.pulls.set(id, sha);
      const previous = pull.fromHash;
      Object.assign(pull, { fromHash: sha, version: pull.version + 1, updated: env.now() });
      const status = await send(repo, url, 'pr:from_ref_updated', pullRequestEvent(env, pull, previous));
      return { sha, status };
    },
    hooks: (fullName) =>
      repoOf(fullName).hooks.map((h) => ({ url: h.url, secret: h.secret, events: [...h.events] })),
    statuses: (sha) =>
      (env.statusLog.get(sha.toLowerCase()) ?? []).map((s) => ({
        state: s.state,
        key: s.key,
        name: s.name,
        url: s.url,
        description: s.description,
      })),
    authorize: (authorizeUrl, login, opts) => {
      const target = new URL(authorizeUrl);
      target.searchParams.set('login', login);
      if (opts?.deny === true) target.searchParams.set('deny', 'true');
      return redirectOf(target);
    },
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
