/**
 * # GitHub API double
 *
 * A real HTTP(S) server on 127.0.0.1 (random port) that answers like GitHub for the calls svc makes,
 * with in-memory state. Built from GitHub's public documentation (docs.github.com), not from GitHub's
 * code; each part follows the pages named here:
 *
 * - OAuth web flow — "Authorizing OAuth apps": `GET /login/oauth/authorize` redirects to `redirect_uri`
 *   with `code` and `state` (acting for the user named by the double-only `login` query parameter, else
 *   the first user added); `POST /login/oauth/access_token` takes form or JSON (or HTTP Basic client
 *   credentials), answers form-encoded or JSON by `Accept`, and reports refusals with 200 and `error`
 *   ("Troubleshooting OAuth app access token request errors": `incorrect_client_credentials`,
 *   `bad_verification_code` for a used/expired/unknown code, `redirect_uri_mismatch`). Codes are
 *   single-use and live ten minutes.
 * - Authentication — "Authenticating to the REST API": `Authorization: token X` or `Bearer X`; an
 *   unknown token is 401 "Bad credentials" on every API call, a missing one 401 "Requires authentication"
 *   on `/user…`; anonymous callers see public repositories only.
 * - Users — "REST API endpoints for users" and "…for emails": `GET /user` (the profile `email` is null
 *   unless the user was added with `publicEmail`), `GET /user/emails`.
 * - Organization membership — "REST API endpoints for organization members": `GET /user/orgs` lists
 *   the user's organizations; `GET /user/memberships/orgs/{org}` answers the user's membership
 *   (`state` active, `role` admin or member) and 404 when the user is not affiliated with the
 *   organization (or it does not exist). Organizations exist only as users' memberships.
 * - Repositories — "REST API endpoints for repositories": `GET /user/repos` (owner and collaborator
 *   repositories, by full name), `GET /repos/{o}/{r}` with `permissions` {admin, maintain, push, triage,
 *   pull} and `visibility`; private repositories are 404 to users without access.
 * - Contents — "REST API endpoints for repository contents": `GET /repos/{o}/{r}/contents/{path}?ref=`
 *   (branch, tag, `refs/pull/N/head` or sha; default branch when absent): a file as base64 wrapped at 60
 *   characters, a directory as a list, 404 for a missing path or ref; files over 1 MB with encoding
 *   `none`; the raw media type (`application/vnd.github.raw`) answers the bytes.
 * - Branches and commits — "…for branches" / "…for commits": `GET /repos/{o}/{r}/branches/{branch}`
 *   (404 "Branch not found"), `GET /repos/{o}/{r}/commits/{ref}` (422 "No commit found for SHA").
 * - Changed files — `GET /repos/{o}/{r}/compare/{base}...{head}` ("compare two commits": `files`,
 *   not paged, at most 300; 404 for an unknown commit) and `GET /repos/{o}/{r}/pulls/{n}/files`
 *   (paged, at most 3,000), each file's `filename` and `status` from the two commits' trees.
 * - Webhooks — "REST API endpoints for repository webhooks": list, create, get, update, delete under
 *   `/repos/{o}/{r}/hooks`; admin rights needed (403 "Must have admin rights to Repository." for
 *   readers); 422 Validation Failed for a missing/invalid `config.url`, an unknown event, a bad
 *   `content_type`, or a second hook with the same URL; the secret shows as `********`.
 * - Statuses — "REST API endpoints for commit statuses": `POST /repos/{o}/{r}/statuses/{sha}` needs push
 *   access; 422 for an unknown sha, a state outside error/failure/pending/success, or a description
 *   over 140 characters; `GET /repos/{o}/{r}/commits/{ref}/statuses` lists them newest first.
 * - Pagination — "Using pagination in the REST API": `per_page` (default 30, at most 100) and `page`,
 *   with a `Link` header (prev, next, last, first) on every list.
 * - Rate limits — "Rate limits for the REST API": `x-ratelimit-limit/remaining/reset/used/resource` on
 *   every API answer; 5,000 requests an hour for the whole double; `exhaustRateLimit` makes every API
 *   call answer 403 with remaining 0 until the given reset time.
 * - GitHub Enterprise Server — "…about the REST API" for GHES: with `enterprise`, the API lives under
 *   `<url>/api/v3` only. Without it the API is at the root like api.github.com (and, leniently, also
 *   under `/api/v3`); give the adapter `apiUrl`.
 * - Webhook deliveries — "Webhook events and payloads" and "Validating webhook deliveries": `push`,
 *   `pushTag`, `pullRequest` and `deliver` POST JSON with `X-GitHub-Event`, `X-GitHub-Delivery`,
 *   `X-GitHub-Hook-ID`, `X-Hub-Signature` (sha1) and `X-Hub-Signature-256` (sha256 HMAC of the exact
 *   body). Payloads have the documented shape (compare them with @octokit/webhooks-examples).
 *
 * - Faults (not GitHub's, svc's tests'): `fail` makes matching requests answer an error status
 *   (with `Retry-After` when given) or close the connection without an answer, `times` times or
 *   until `recover` — GitHub down, overloaded or rate-limited (test/doubles/forge/faults.ts).
 *
 * Not modelled: teams, pending invitations, organization profiles, scopes (every token may do everything its user may), ETags,
 * the automatic `ping` GitHub sends when a hook is created, secondary rate limits.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Env } from './env.js';
import { RateLimit } from './rate-limit.js';
import { oauthRoutes, grant } from './routes-oauth.js';
import { repoRoutes } from './routes-repos.js';
import { teamRoutes, type Team } from './routes-teams.js';
import { changeRoutes } from './routes-changes.js';
import { hookRoutes } from './routes-hooks.js';
import { statusRoutes } from './routes-statuses.js';
import { userRoutes } from './routes-user.js';
import { createServer, type ReceivedRequest } from './server.js';
import { GitHubState } from './state.js';
import { deliver } from './webhooks.js';
import { sendForcedPush, sendPullRequest, sendPush, type PullRequestOptions } from './deliveries.js';
import type { ForgeDouble } from '../forge/double.js';
import { closeServer } from '../forge/router.js';
import { Faults, type FaultHit, type FaultRule } from '../forge/faults.js';

export type { ReceivedRequest } from './server.js';
export type { PullRequestOptions } from './deliveries.js';
export type { FaultHit, FaultRule } from '../forge/faults.js';

/** A running GitHub double; see the module comment for what it serves. */
export interface GitHubDouble extends ForgeDouble {
  /** The REST API root: `url` for the github.com flavour, `<url>/api/v3` for the enterprise one. */
  readonly apiUrl: string;
  /** The OAuth app the double accepts. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** Adds an account; its token is generated unless given. `email` is the primary email. */
  addUser(user: {
    login: string;
    email?: string;
    token?: string;
    publicEmail?: boolean;
    /** Organizations the user is a member of. */
    orgs?: string[];
    /** Organizations the user administers (and so is a member of). */
    orgAdmin?: string[];
  }): {
    login: string;
    token: string;
  };
  /**
   * Adds a commit on a branch with these files (path → content); returns its sha. `sha` mirrors a
   * commit of a real git repository the test serves, so that clone steps find the same commit.
   */
  /** OAuth: the code GitHub would hand back after the user authorized the app. */
  authorizationCode(login: string): string;
  /**
   * Sends a signed `push` webhook for the latest commit of the branch to `url`, as the repository's hook
   * for that URL would; returns the HTTP status svc answered. `secret` overrides the hook's secret
   * (to send a bad signature, or to deliver when no hook was created).
   */
  /** Like `push`, for a forced push whose earlier head was `before` (perhaps gone). */
  forcePush(fullName: string, branch: string, url: string, before: string): Promise<number>;
  /** Like `push`, for a tag (`refs/tags/<tag>`). */
  pushTag(fullName: string, tag: string, url: string, options?: { secret?: string }): Promise<number>;
  /**
   * Sends a signed `pull_request` webhook (action `opened` unless given) for `head` into `base` (default:
   * the default branch); `fork` names another repository of the double the head branch lives in.
   */
  pullRequest(
    fullName: string,
    head: string,
    url: string,
    options?: PullRequestOptions,
  ): Promise<{ number: number; sha: string; status: number }>;
  /** Raw: send any event payload, signed with the secret. */
  deliver(url: string, event: string, payload: unknown, secret: string): Promise<number>;
  /** The repository's hooks, with their secrets. */
  hooks(fullName: string): { url: string; secret: string; events: string[] }[];
  /** The statuses posted for a commit, oldest first. */
  statuses(
    fullName: string,
    sha: string,
  ): { state: string; context: string; description: string; target_url: string }[];
  /** Every request received, oldest first. */
  requests(): readonly ReceivedRequest[];
  /** Refuses every API call with 403 and `x-ratelimit-remaining: 0` until `resetAt`. */
  exhaustRateLimit(resetAt: Date): void;
  /** Answers matching requests (API, OAuth, anything) with a failure instead (see Faults). */
  fail(rule: FaultRule): void;
  /** Ends every injected failure. */
  recover(): void;
  /** The requests that got an injected failure, oldest first. */
  faultHits(): readonly FaultHit[];
  /** The user renames their account: the old login is free for someone else to register. */
  renameUser(from: string, to: string): void;
  /** Deletes a repository (with its hooks); its name is free again, and a new one gets a new id. */
  deleteRepo(fullName: string): void;
  /** The organization is deleted and its name registered again: its id changes. */
  recreateOrg(name: string): void;
  /** Takes every right on the repository from the user (removed as a collaborator). */
  removeCollaborator(fullName: string, login: string): void;
  /** Adds a team to an organization with these members (logins); returns its id. */
  addTeam(org: string, slug: string, members: string[]): number;
  /** Renames a team: its slug changes, its id does not. */
  renameTeam(org: string, slug: string, to: string): void;
}

/** Options of the double; `tls` serves https with that key and certificate (for SKIP_VERIFY tests). */
export interface GitHubDoubleOptions {
  enterprise?: boolean;
  /**
   * Requests an hour before the API refuses (default GitHub's 5,000). A GitHub Enterprise Server
   * sets its own, or none: its rate limiting is off unless an administrator turns it on.
   */
  rateLimit?: number;
  tls?: { key: string; cert: string };
}

/** Starts a GitHub double on a random loopback port. */
export async function startGitHubDouble(options: GitHubDoubleOptions = {}): Promise<GitHubDouble> {
  const state = new GitHubState();
  const teams: Team[] = [];
  const apiPrefix = options.enterprise === true ? '/api/v3' : '';
  const env: Env = {
    state,
    urls: { web: '', api: '' },
    app: { clientId: `Iv1.${randomBytes(8).toString('hex')}`, clientSecret: randomBytes(20).toString('hex') },
    pullBases: new Map(),
  };
  const rateLimit = new RateLimit(options.rateLimit);
  const received: ReceivedRequest[] = [];
  const unknown: string[] = [];
  const faults = new Faults();
  const server = createServer({
    faults,
    env,
    apiPrefix,
    alsoV3: true,
    web: oauthRoutes(env),
    api: [
      ...userRoutes(env),
      ...repoRoutes(env),
      ...changeRoutes(env),
      ...teamRoutes(env, teams),
      ...hookRoutes(env),
      ...statusRoutes(env),
    ],
    rateLimit,
    received,
    unknown,
    tls: options.tls,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  env.urls.web = url;
  env.urls.api = `${url}${apiPrefix}`;

  return {
    url,
    apiUrl: env.urls.api,
    clientId: env.app.clientId,
    clientSecret: env.app.clientSecret,
    addUser(user) {
      state.addUser(user, user.publicEmail === true);
      const token = user.token ?? state.newToken(user.login);
      state.tokens.set(token, user.login);
      return { login: user.login, token };
    },
    addRepo: (repo) => state.addRepo(repo, 'main'),
    commit: (...args) => state.commitTo(...args),
    tag: (fullName, tag, sha) => state.tag(fullName, tag, sha),
    authorizationCode: (login) => grant(env, login, undefined),
    push: (fullName, branch, target, opts) => sendPush(env, fullName, 'heads', branch, target, opts?.secret),
    forcePush: (fullName, branch, target, before) => sendForcedPush(env, fullName, branch, target, before),
    pushTag: (fullName, tagName, target, opts) =>
      sendPush(env, fullName, 'tags', tagName, target, opts?.secret),
    pullRequest: (fullName, head, target, opts = {}) => sendPullRequest(env, fullName, head, target, opts),
    deliver: (target, event, payload, secret) => deliver(target, event, payload, secret),
    hooks: (fullName) =>
      state
        .repoByFullName(fullName)
        .hooks.map((h) => ({ url: h.url, secret: h.secret, events: [...h.events] })),
    statuses: (fullName, sha) =>
      (state.repoByFullName(fullName).statuses.get(sha) ?? []).map((s) => ({
        state: s.state,
        context: s.context,
        description: s.description,
        target_url: s.target_url,
      })),
    requests: () => received,
    unknownCalls: () => unknown,
    exhaustRateLimit: (resetAt) => rateLimit.exhaust(resetAt),
    fail: (rule) => faults.fail(rule),
    recover: () => faults.recover(),
    faultHits: () => faults.hits,
    renameUser: (from, to) => void state.renameUser(from, to),
    deleteRepo(fullName) {
      state.repoByFullName(fullName); // throws for an unknown repository
      state.repos.delete(fullName.toLowerCase());
    },
    recreateOrg: (name) => void state.recreateOrg(name),
    removeCollaborator(fullName, login) {
      const repo = state.repoByFullName(fullName);
      for (const holders of [repo.admins, repo.writers, repo.readers]) holders.delete(login.toLowerCase());
    },
    addTeam(org, slug, members) {
      const id = 7_000 + teams.length;
      teams.push({ id, org, slug, name: slug, members: new Set(members.map((m) => m.toLowerCase())) });
      return id;
    },
    renameTeam(org, slug, to) {
      const team = teams.find((t) => t.org === org && t.slug === slug);
      if (team === undefined) throw new Error(`no team ${org}/${slug}`);
      team.slug = to;
    },
    close: () => closeServer(server),
  };
}
