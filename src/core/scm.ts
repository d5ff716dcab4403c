import type { BuildEvent } from './build.js';
import type { Visibility } from './repo.js';

/** A user's OAuth credentials at the git provider. */
export interface ScmToken {
  token: string;
  /** Empty when the provider issues no refresh token. */
  refresh: string;
  /** Epoch milliseconds; 0 when the token does not expire. */
  expiry: number;
}

/** The logged-in user as the provider describes them. */
export interface ScmAccount {
  /**
   * The provider's immutable id of the person (GitHub, GitLab, Gitea, Gogs and Bitbucket Server:
   * the numeric `id`; Bitbucket Cloud: the account's `uuid`). Logins can be renamed and then
   * registered by someone else; this cannot.
   */
  uid: string;
  login: string;
  email: string;
  avatar: string;
}

/** The asking user's standing in an organization at the provider. */
export interface ScmMembership {
  /** An active member (an invitation not yet accepted does not count). */
  member: boolean;
  /** An active member who administers the organization (GitHub: role `admin`, the owners). */
  admin: boolean;
}

/** A repository as the provider describes it, with the permissions of the user who asked. */
export interface ScmRepo {
  /** The provider's stable id of the repository. */
  uid: string;
  namespace: string;
  /**
   * The provider's id of the namespace (organization, group, workspace, project or user that owns
   * the repository): an organization deleted and registered again under its name gets a new one.
   * Empty when the provider's answer does not name it.
   */
  namespaceUid: string;
  name: string;
  cloneUrl: string;
  cloneUrlSsh: string;
  link: string;
  defaultBranch: string;
  private: boolean;
  visibility: Visibility;
  perm: { read: boolean; write: boolean; admin: boolean };
}

/** Identifies a repository in calls to the provider. */
/** A team of an organization at the provider: named by org and slug, known by its immutable id. */
export interface ScmTeam {
  org: string;
  slug: string;
  uid: string;
}

export interface ScmRepoRef {
  namespace: string;
  name: string;
}

/** The build a verified webhook asks for: everything the provider says about the change. */
export interface ScmHookBuild {
  event: BuildEvent;
  /** `opened`, `synchronized`, `reopened`, … for pull requests; `created` for tags; empty for pushes. */
  action: string;
  ref: string;
  before: string;
  /**
   * The commit to build. Empty when the provider's payload names no commit (Gogs' pull requests):
   * the trigger then builds the head of `source` in `sourceRepo`; a short hash (Bitbucket's pull
   * requests) is completed from `sourceRepo`.
   */
  after: string;
  /** Source and target branch (the same for pushes; the tag name for tags). */
  source: string;
  target: string;
  /** `owner/name` of the repository the change comes from (a fork for fork pull requests). */
  sourceRepo: string;
  /** True when the change comes from a fork: such builds get no secrets. */
  fork: boolean;
  title: string;
  message: string;
  link: string;
  authorLogin: string;
  authorName: string;
  authorEmail: string;
  authorAvatar: string;
  sender: string;
  /**
   * The payload names the commit but not its details (Bitbucket Server's pushes), or may name an
   * annotated tag object instead of its commit: the trigger reads the commit (`after` becomes the
   * commit it resolves to) and fills in what the payload left empty.
   */
  incomplete?: boolean;
}

/** What an incoming webhook amounts to, after its signature was verified. */
export type ScmHookResult =
  | {
      kind: 'build';
      repo: ScmRepoRef & { uid: string };
      build: ScmHookBuild;
      /**
       * The provider's id of this delivery, from the header it names it in (`X-GitHub-Delivery`, …;
       * docs/webhooks.md): the server takes a delivery once, so that one sent again — retried by the
       * provider or replayed by whoever captured it — makes no second build. Empty when the request
       * carries none. Not covered by any signature: the server does not rely on it alone.
       */
      delivery: string;
    }
  /** A verified hook that asks for no build (a ping, a branch deletion, an unsupported event). */
  | { kind: 'ignored'; reason: string };

/** An incoming HTTP request, as much of it as webhook parsing needs. */
export interface ScmHookRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body: signatures are computed over the exact bytes. */
  body: Buffer;
}

/** A commit status to post. */
export interface ScmStatus {
  state: 'pending' | 'running' | 'success' | 'failure' | 'error';
  /** The status's name at the provider (SVC_STATUS_NAME, plus the pipeline name when per stage). */
  context: string;
  description: string;
  /** Where the status links to: the build page in svc. */
  targetUrl: string;
  /**
   * The build's git ref (`refs/heads/main`, `refs/tags/v1`, `refs/pull/7/head`): GitLab files a
   * status under a branch or tag, and cannot find one for a commit only a merge request reaches.
   */
  ref: string;
}

/** A commit as the provider describes it. */
export interface ScmCommit {
  /** The full commit sha. */
  sha: string;
  message: string;
  /** The commit's page at the provider. */
  link: string;
  /** The author's account at the provider; empty when the author's email belongs to no account. */
  authorLogin: string;
  /** Name and email as recorded in the commit. */
  authorName: string;
  authorEmail: string;
  /** The account's avatar; empty without an account. */
  authorAvatar: string;
}

/** Which commit to look up: the head of a branch, or a commit by its sha. */
export type ScmCommitRef = { branch: string } | { sha: string };

/** What a build changes, for `paths` conditions: a push from `before` to `after`, or a pull request. */
export type ScmChange = { kind: 'push'; before: string; after: string } | { kind: 'pull'; number: number };

/**
 * The files a change touches (added, modified, deleted; a rename's both names), or why they cannot
 * be known (a provider's limit reached, a commit it no longer has): then nothing is skipped for it.
 */
export type ScmChangedFiles = { known: true; files: string[] } | { known: false; reason: string };

/** Credentials for cloning over HTTP(S), as a `.netrc` entry. */
export interface ScmNetrc {
  machine: string;
  login: string;
  password: string;
}

/**
 * OAuth 2 authorization code login (GitHub, GitLab, Gitea, Bitbucket Cloud): the browser goes to the
 * provider's authorize page and comes back to svc's `/login` with a `code` and the `state` svc sent.
 */
export interface ScmOAuth2Login {
  readonly kind: 'oauth2';
  /** The provider's authorize page for `state`, returning to `redirectUri`. */
  authorizeUrl(state: string, redirectUri: string): string;
  /** Exchanges the `code` the provider sent back for the user's token; UNAUTHORIZED when refused. */
  exchangeCode(code: string, redirectUri: string): Promise<ScmToken>;
  /**
   * For providers whose tokens expire (GitLab, Gitea, Bitbucket Cloud): a new token for the
   * token's refresh token. UNAUTHORIZED when the provider no longer accepts the refresh token (the
   * user must log in again).
   */
  refresh?(token: ScmToken): Promise<ScmToken>;
}

/**
 * Username and password login (Gogs, which has no OAuth applications): svc's `/login` shows a form,
 * and the provider turns the pair into an access token of the user's. The password is used for that
 * one call and never kept.
 */
export interface ScmPasswordLogin {
  readonly kind: 'password';
  /** What the form asks for, in words: `your Gogs account at https://gogs.example.com`. */
  readonly account: string;
  /**
   * The user's token; UNAUTHORIZED for a wrong username or password. `known` is the token svc kept
   * from the user's last login: reused, once the password checked out, while it still works.
   */
  login(username: string, password: string, known?: ScmToken): Promise<ScmToken>;
}

/**
 * OAuth 1.0a login (Bitbucket Server / Data Center, RFC 5849): svc asks the provider for a request
 * token that returns to `callbackUrl`, the browser authorizes it at the provider, and the provider
 * sends the user back with the request token and a verifier, which svc exchanges for the access token.
 */
export interface ScmOAuth1Login {
  readonly kind: 'oauth1';
  /** A request token for `callbackUrl`, and the provider's authorize page for it. */
  start(callbackUrl: string): Promise<{ requestToken: string; authorizeUrl: string }>;
  /**
   * The user's access token for the authorized request token and the verifier the provider sent
   * back; UNAUTHORIZED when the provider refuses them (expired, used, or the user denied access).
   */
  exchange(requestToken: string, verifier: string): Promise<ScmToken>;
}

export type ScmLogin = ScmOAuth2Login | ScmPasswordLogin | ScmOAuth1Login;

/**
 * One git provider (GitHub, GitLab, Gitea, …). Every method that talks to the provider takes the
 * credentials of the user on whose behalf it acts. Contract:
 * - Errors: a provider refusal is an `SvcError` — UNAUTHORIZED for a rejected token, FORBIDDEN for
 *   missing rights, NOT_FOUND for a missing repository/file/branch; a provider that cannot be reached
 *   or answers 5xx is an `SvcError('INTERNAL')` whose message names the provider and the call. Never a
 *   raw HTTP client error.
 * - Rate limits: when the provider says its limit is exhausted, the error says when it resets.
 * - Lists are complete: implementations follow the provider's pagination.
 */
export interface ScmProvider {
  /** The settings prefix of the provider (`scmc` for GitHub, …), stored on repositories. */
  readonly name: string;

  /** How users log in: through the provider's pages, or with a form on svc's own login page. */
  readonly login: ScmLogin;
  /**
   * False for a provider without commit statuses (Gogs has no such API): `setStatus` then does
   * nothing, and the server says so once instead of failing every build's report.
   */
  readonly reportsStatus: boolean;

  currentUser(token: ScmToken): Promise<ScmAccount>;
  /**
   * The logins of the organizations the user belongs to, as far as the token may see them (GitHub
   * lists private memberships only with the `read:org` scope): SVC_USER_FILTER admits their members.
   */
  organizations(token: ScmToken): Promise<string[]>;
  /**
   * The user's standing in the organization `namespace` (organization secrets are read by its
   * members and changed by its administrators). Not being a member is an answer, not an error:
   * `{ member: false, admin: false }`, also for an organization that does not exist or that the
   * token may not see. Pending invitations do not count. `admin` implies `member`.
   */
  membership(token: ScmToken, namespace: string): Promise<ScmMembership>;
  /** Every repository the user can see, with their permissions on it. */
  listRepos(token: ScmToken): Promise<ScmRepo[]>;
  findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo>;

  /** The file's content at `commit`; undefined when the file does not exist there. */
  fileContents(token: ScmToken, repo: ScmRepoRef, path: string, commit: string): Promise<string | undefined>;
  /** The commit a branch points at. */
  branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string>;
  /**
   * The details of a commit: the head of `{branch}` (a branch name, not a ref: `main`, not
   * `refs/heads/main`) or the commit `{sha}` (a full sha). NOT_FOUND when the repository, the branch
   * or the commit does not exist (also when the provider calls an unknown sha invalid input), so
   * callers can answer "no such commit" without knowing the provider.
   */
  findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit>;
  /**
   * The files `change` touches, for `paths` conditions (svc addition): a push's compare of
   * `before` with `after`, a pull request's files, every page read. Absent on a provider svc does
   * not ask yet; an answer that may be incomplete is `known: false` with the reason.
   */
  changedFiles?(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles>;
  /**
   * The teams the token's user belongs to, every page (deployment approvers, issue 35); absent on
   * providers whose teams svc does not read.
   */
  teams?(token: ScmToken): Promise<ScmTeam[]>;
  /** One team of an organization by its slug, as the token sees it; NotFoundError when there is none. */
  findTeam?(token: ScmToken, org: string, slug: string): Promise<ScmTeam>;

  /** Creates (or, when one with the same URL exists, updates) the repository webhook. */
  createHook(token: ScmToken, repo: ScmRepoRef, hook: { url: string; secret: string }): Promise<void>;
  /** Deletes the repository webhooks with that URL; none is not an error. */
  deleteHook(token: ScmToken, repo: ScmRepoRef, url: string): Promise<void>;

  /**
   * Verifies and reads an incoming webhook. `secretOf` gives the secret of the repository the hook
   * claims to be for (undefined: unknown repository). A hook whose signature does not verify with that
   * secret is rejected with UNAUTHORIZED before anything else is read from it; a malformed one with
   * INVALID_INPUT.
   */
  parseHook(
    request: ScmHookRequest,
    secretOf: (repo: ScmRepoRef & { uid: string }) => Promise<string | undefined>,
  ): Promise<ScmHookResult>;

  /** Posts a commit status. */
  setStatus(token: ScmToken, repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void>;

  /** Clone credentials for the repository, from the user's token (and SVC_GIT_* overrides). */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined;
}
