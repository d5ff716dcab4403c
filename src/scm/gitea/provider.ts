import { SvcError } from '../../core/errors.js';
import type {
  ScmAccount,
  ScmChange,
  ScmChangedFiles,
  ScmTeam,
  ScmCommit,
  ScmCommitRef,
  ScmHookRequest,
  ScmHookResult,
  ScmMembership,
  ScmNetrc,
  ScmOAuth2Login,
  ScmProvider,
  ScmRepo,
  ScmRepoRef,
  ScmStatus,
  ScmToken,
} from '../../core/scm.js';
import { gitAuthOf, netrcFor, type GitAuthOptions } from '../netrc.js';
import { oauth2LoginOf, type OAuth2Client } from '../oauth2.js';
import { filePath, repoPath } from '../paths.js';
import { providerTransport } from '../transport.js';
import { giteaFindTeam, giteaTeams } from './teams.js';
import { giteaChangedFiles } from './changed-files.js';
import { GiteaClient } from './client.js';
import { toGiteaState, toScmCommit, toScmRepo } from './convert.js';
import { GITEA } from './errors.js';
import { createHook, deleteHook } from './hooks.js';
import { giteaEndpoints, type GiteaOptions } from './options.js';
import { parseHook } from './parse.js';
import {
  branchSchema,
  commitSchema,
  orgPermissionsSchema,
  orgSchema,
  repoSchema,
  userSchema,
} from './schemas.js';
import { STATUS_CALL } from '../rest-client.js';

/** Full commit shas only: Gitea's `ref=` resolves branches and tags first, then only full shas. */
const COMMIT_QUERY = 'stat=false&verification=false&files=false';

/**
 * Gitea and Forgejo behind svc's ScmProvider (settings SVC_SCMB_*), from their API v1: OAuth2 login
 * with expiring tokens and their refresh, repositories across pages, raw files, commits, changed
 * files, hooks, signed webhooks and commit statuses.
 */
export class GiteaProvider implements ScmProvider {
  readonly name = 'scmb';
  readonly reportsStatus = true;
  readonly login: ScmOAuth2Login;
  readonly #git: GitAuthOptions;
  readonly #client: GiteaClient;

  constructor(options: GiteaOptions) {
    const endpoints = giteaEndpoints(options.server);
    this.#git = gitAuthOf(options);
    const transport = providerTransport(options);
    this.#client = new GiteaClient(endpoints.api, transport);
    const oauth: OAuth2Client = {
      provider: GITEA,
      authorizeUrl: endpoints.authorize,
      tokenUrl: endpoints.accessToken,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientAuth: 'body',
      transport,
    };
    // No scope is asked for: an OAuth token without one has every right, on every Gitea and Forgejo.
    this.login = oauth2LoginOf(oauth);
  }

  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    return {
      uid: String(user.id),
      login: user.login,
      email: user.email ?? '',
      avatar: user.avatar_url ?? '',
    };
  }

  async organizations(token: ScmToken): Promise<string[]> {
    const orgs = await this.#client.list(token.token, '/user/orgs', orgSchema);
    return orgs.map((org) => org.name ?? org.username ?? '').filter((name) => name !== '');
  }

  /**
   * `GET /orgs/{org}/members/{me}` (204: a member, 404: not, also for no such organization), then
   * the user's role from `GET /users/{me}/orgs/{org}/permissions` (owners and admins administer it).
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    const me = (await this.currentUser(token)).login;
    const org = encodeURIComponent(namespace);
    const user = encodeURIComponent(me);
    try {
      await this.#client.raw(token.token, `/orgs/${org}/members/${user}`);
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))
        return { member: false, admin: false };
      throw error;
    }
    const role = await this.#client.json(
      token.token,
      'GET',
      `/users/${user}/orgs/${org}/permissions`,
      orgPermissionsSchema,
    );
    return { member: true, admin: role.is_owner || role.is_admin };
  }

  async listRepos(token: ScmToken): Promise<ScmRepo[]> {
    return (await this.#client.list(token.token, '/user/repos', repoSchema)).map(toScmRepo);
  }

  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    return toScmRepo(await this.#client.json(token.token, 'GET', repoPath(repo), repoSchema));
  }

  /**
   * `GET /repos/{o}/{r}/raw/{path}?ref={sha}`. Gitea answers 404 alike for a missing file, commit or
   * repository: the repository and the commit are then looked up, so that only a missing file is
   * `undefined`.
   */
  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const raw = `${repoPath(repo)}/raw/${filePath(path)}?ref=${encodeURIComponent(commit)}`;
    try {
      return (await this.#client.raw(token.token, raw)).text;
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== 'NOT_FOUND') throw error;
      await this.findCommit(token, repo, { sha: commit });
      return undefined;
    }
  }

  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${repoPath(repo)}/branches/${filePath(branch)}`;
    return (await this.#client.json(token.token, 'GET', path, branchSchema)).commit.id;
  }

  /** `GET …/git/commits/{sha}` (every Gitea from 1.17 and Forgejo); a branch is read as its head first. */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const sha = 'branch' in at ? await this.branchHead(token, repo, at.branch) : at.sha;
    const path = `${repoPath(repo)}/git/commits/${encodeURIComponent(sha)}?${COMMIT_QUERY}`;
    try {
      return toScmCommit(await this.#client.json(token.token, 'GET', path, commitSchema));
    } catch (error) {
      // Gitea calls a sha that is no ref name invalid input (422): for svc, no such commit.
      if (error instanceof SvcError && error.code === 'INVALID_INPUT') {
        throw new SvcError('NOT_FOUND', `${GITEA} has no commit ${sha} in ${repo.namespace}/${repo.name}`);
      }
      throw error;
    }
  }

  changedFiles(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    return giteaChangedFiles(this.#client, token.token, repo, change);
  }

  teams(token: ScmToken): Promise<ScmTeam[]> {
    return giteaTeams(this.#client, token.token);
  }

  findTeam(token: ScmToken, org: string, slug: string): Promise<ScmTeam> {
    return giteaFindTeam(this.#client, token.token, org, slug);
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

  /** `POST /repos/{o}/{r}/statuses/{sha}` (write access); Gitea keeps descriptions of any length. */
  async setStatus(token: ScmToken, repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    await this.#client.send(
      token.token,
      'POST',
      `${repoPath(repo)}/statuses/${encodeURIComponent(commit)}`,
      {
        state: toGiteaState(status.state),
        target_url: status.targetUrl,
        description: status.description,
        context: status.context,
      },
      STATUS_CALL,
    );
  }

  /** Gitea's git over HTTP takes a token as the username with any password. */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    return netrcFor(this.#git, repo, { login: token.token, password: 'x-oauth-basic' });
  }
}
