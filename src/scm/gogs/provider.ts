import { SvcError } from '../../core/errors.js';
import type {
  ScmAccount,
  ScmChangedFiles,
  ScmCommit,
  ScmCommitRef,
  ScmHookRequest,
  ScmHookResult,
  ScmMembership,
  ScmNetrc,
  ScmPasswordLogin,
  ScmProvider,
  ScmRepo,
  ScmRepoRef,
  ScmToken,
} from '../../core/scm.js';
import { gitAuthOf, netrcFor, type GitAuthOptions } from '../netrc.js';
import { filePath, repoPath } from '../paths.js';
import { providerTransport } from '../transport.js';
import { gogsChangedFiles } from './changed-files.js';
import { GogsClient } from './client.js';
import { absoluteAvatar, toScmCommit, toScmRepo } from './convert.js';
import { createHook, deleteHook } from './hooks.js';
import { passwordLogin } from './login.js';
import { gogsEndpoints, type GogsOptions } from './options.js';
import { parseHook } from './parse.js';
import { branchSchema, commitSchema, orgSchema, repoSchema, userSchema } from './schemas.js';

/**
 * Gogs behind svc's ScmProvider (settings SVC_SCME_*), from Gogs' API v1. Users log in with their
 * Gogs username and password (Gogs has no OAuth applications); Gogs has no commit status API, no
 * rate limits, no API that tells an organization's owners from its members and none that lists a
 * change's files.
 */
export class GogsProvider implements ScmProvider {
  readonly name = 'scme';
  readonly reportsStatus = false;
  readonly login: ScmPasswordLogin;
  readonly #server: string;
  readonly #git: GitAuthOptions;
  readonly #client: GogsClient;

  constructor(options: GogsOptions) {
    const endpoints = gogsEndpoints(options.server);
    this.#server = endpoints.server;
    this.#git = gitAuthOf(options);
    const transport = providerTransport(options);
    this.#client = new GogsClient(endpoints.api, transport);
    const tokenName = options.tokenName ?? 'svc';
    this.login = {
      kind: 'password',
      account: `your Gogs account at ${this.#server}`,
      login: (username, password, known) => passwordLogin(this.#client, tokenName, username, password, known),
    };
  }

  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    return {
      uid: String(user.id),
      login: user.username,
      email: user.email ?? '',
      avatar: absoluteAvatar(user.avatar_url, this.#server),
    };
  }

  /** `GET /user/orgs` lists every organization the user belongs to, private memberships too. */
  async organizations(token: ScmToken): Promise<string[]> {
    const orgs = await this.#client.list(token.token, '/user/orgs', orgSchema);
    return orgs.map((org) => org.username);
  }

  /**
   * Membership from the user's organizations. Gogs has no API for a member's role (owners are a team
   * like any other), so svc never takes a member for an administrator: organization secrets of a
   * Gogs organization are changed by svc's administrators.
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    const orgs = await this.organizations(token);
    const member = orgs.some((org) => org.toLowerCase() === namespace.toLowerCase());
    return { member, admin: false };
  }

  async listRepos(token: ScmToken): Promise<ScmRepo[]> {
    return (await this.#client.list(token.token, '/user/repos', repoSchema)).map(toScmRepo);
  }

  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    return toScmRepo(await this.#client.json(token.token, 'GET', repoPath(repo), repoSchema));
  }

  /**
   * `GET /repos/{o}/{r}/raw/{sha}/{path}` (every Gogs version; the ref must be a full sha or a short
   * branch or tag name). Gogs answers 404 alike for a missing file, commit or repository: the
   * repository and the commit are then looked up, so that only a missing file is `undefined`.
   */
  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const raw = `${repoPath(repo)}/raw/${encodeURIComponent(commit)}/${filePath(path)}`;
    try {
      return (await this.#client.raw(token.token, raw)).text;
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== 'NOT_FOUND') throw error;
      await this.findRepo(token, repo);
      await this.#client.send(token.token, 'GET', `${repoPath(repo)}/commits/${encodeURIComponent(commit)}`);
      return undefined;
    }
  }

  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${repoPath(repo)}/branches/${filePath(branch)}`;
    return (await this.#client.json(token.token, 'GET', path, branchSchema)).commit.id;
  }

  /**
   * `GET …/commits/{sha}` names the author's account; for a branch, `GET …/branches/{branch}` first
   * gives the head and its full message (the commits API gives the subject line only).
   */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    let sha: string;
    let message: string | undefined;
    if ('branch' in at) {
      const path = `${repoPath(repo)}/branches/${filePath(at.branch)}`;
      const branch = await this.#client.json(token.token, 'GET', path, branchSchema);
      sha = branch.commit.id;
      message = branch.commit.message.replace(/\n+$/, '');
    } else {
      sha = at.sha;
    }
    const path = `${repoPath(repo)}/commits/${encodeURIComponent(sha)}`;
    return toScmCommit(
      await this.#client.json(token.token, 'GET', path, commitSchema),
      this.#server,
      message,
    );
  }

  /** Gogs cannot tell: every change's files are not known, and the answer says why. */
  changedFiles(): Promise<ScmChangedFiles> {
    return Promise.resolve(gogsChangedFiles());
  }

  createHook(token: ScmToken, repo: ScmRepoRef, hook: { url: string; secret: string }): Promise<void> {
    return createHook(this.#client, token.token, repo, hook);
  }

  deleteHook(token: ScmToken, repo: ScmRepoRef, url: string): Promise<void> {
    return deleteHook(this.#client, token.token, repo, url);
  }

  parseHook(
    request: ScmHookRequest,
    secretOf: (repo: ScmRepoRef & { uid: string }) => Promise<string | undefined>,
  ): Promise<ScmHookResult> {
    return parseHook(request, secretOf);
  }

  /** Gogs has no commit status API (reportsStatus is false): nothing to post. */
  setStatus(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Gogs' git over HTTP takes an access token as the username with any password, in every version
   * (the token as the password works only from 0.13 on).
   */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    return netrcFor(this.#git, repo, { login: token.token, password: 'x-oauth-basic' });
  }
}
