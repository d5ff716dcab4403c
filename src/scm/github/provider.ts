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
import { netrcFor, type GitAuthOptions } from '../netrc.js';
import { createTransport, type Transport } from '../transport.js';
import { GitHubClient } from './client.js';
import { statusDescription, toGitHubState, toScmCommit, toScmRepo } from './convert.js';
import { createHook, deleteHook } from './hooks.js';
import { authorizeUrl, exchangeCode, type OAuthApp } from './oauth.js';
import { githubEndpoints, type GitHubEndpoints, type GitHubOptions } from './options.js';
import { parseHook } from './parse.js';
import { filePath, repoPath } from '../paths.js';
import { gitHubFindTeam, gitHubTeams } from './teams.js';
import { gitHubChangedFiles } from './changed-files.js';
import {
  branchSchema,
  commitSchema,
  contentSchema,
  emailSchema,
  membershipSchema,
  orgSchema,
  repoSchema,
  userSchema,
} from './schemas.js';
import { STATUS_CALL } from '../rest-client.js';

/** GitHub and GitHub Enterprise Server behind svc's ScmProvider (settings SVC_SCMC_*). */
export class GitHubProvider implements ScmProvider {
  readonly name = 'scmc';
  readonly #endpoints: GitHubEndpoints;
  readonly #app: OAuthApp;
  readonly #git: GitAuthOptions;
  readonly #transport: Transport;
  readonly #client: GitHubClient;

  constructor(options: GitHubOptions) {
    this.#endpoints = githubEndpoints(options.server, options.apiUrl);
    this.#app = { clientId: options.clientId, clientSecret: options.clientSecret, scopes: options.scopes };
    this.#git = {
      gitAlwaysAuth: options.gitAlwaysAuth,
      gitUsername: options.gitUsername,
      gitPassword: options.gitPassword,
    };
    this.#transport = createTransport({
      skipVerify: options.skipVerify,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    this.#client = new GitHubClient(this.#endpoints.api, this.#transport);
  }

  readonly reportsStatus = true;

  readonly login: ScmOAuth2Login = {
    kind: 'oauth2',
    authorizeUrl: (state, redirectUri) => authorizeUrl(this.#endpoints, this.#app, state, redirectUri),
    exchangeCode: (code, redirectUri) =>
      exchangeCode(this.#transport, this.#endpoints, this.#app, code, redirectUri),
  };

  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    const email = user.email || (await this.#primaryEmail(token));
    return { uid: String(user.id), login: user.login, email, avatar: user.avatar_url ?? '' };
  }

  async organizations(token: ScmToken): Promise<string[]> {
    const orgs = await this.#client.list(token.token, '/user/orgs', orgSchema);
    return orgs.map((org) => org.login);
  }

  /**
   * GitHub answers 404 when the user is not affiliated with the organization (or it does not exist),
   * and 403 when the organization keeps this app out: either way the user is no member svc can see.
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    const path = `/user/memberships/orgs/${encodeURIComponent(namespace)}`;
    try {
      const { state, role } = await this.#client.json(token.token, 'GET', path, membershipSchema);
      const member = state === 'active';
      return { member, admin: member && role === 'admin' };
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))
        return { member: false, admin: false };
      throw error;
    }
  }

  /**
   * The profile shows only a public email; the primary one needs the `user:email` scope. Without the
   * scope GitHub refuses, and the account simply has no email.
   */
  async #primaryEmail(token: ScmToken): Promise<string> {
    try {
      const emails = await this.#client.list(token.token, '/user/emails', emailSchema);
      return emails.find((e) => e.primary)?.email ?? '';
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND')) return '';
      throw error;
    }
  }

  async listRepos(token: ScmToken): Promise<ScmRepo[]> {
    const repos = await this.#client.list(token.token, '/user/repos', repoSchema);
    return repos.map(toScmRepo);
  }

  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    return toScmRepo(await this.#client.json(token.token, 'GET', repoPath(repo), repoSchema));
  }

  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const url = `${repoPath(repo)}/contents/${filePath(path)}?ref=${encodeURIComponent(commit)}`;
    const content = await this.#client
      .json(token.token, 'GET', url, contentSchema)
      .catch(async (error: unknown) => {
        // A missing file is an answer, not a failure; a missing repository or commit stays NOT_FOUND.
        if (
          error instanceof SvcError &&
          error.code === 'NOT_FOUND' &&
          (await this.#exists(token, repo, commit))
        ) {
          return undefined;
        }
        throw error;
      });
    if (content === undefined) return undefined;
    if (Array.isArray(content) || content.type !== 'file') return undefined;
    if (content.encoding === 'base64' && content.content !== undefined) {
      return Buffer.from(content.content, 'base64').toString('utf8');
    }
    // Files over 1 MB come without content; the raw media type serves up to 100 MB.
    return this.#client.raw(token.token, url);
  }

  /** Whether the repository and commit exist, to tell a missing file from a missing repository. */
  async #exists(token: ScmToken, repo: ScmRepoRef, commit: string): Promise<boolean> {
    try {
      await this.#client.send(token.token, 'GET', `${repoPath(repo)}/commits/${encodeURIComponent(commit)}`);
      return true;
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'INVALID_INPUT'))
        return false;
      throw error;
    }
  }

  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${repoPath(repo)}/branches/${encodeURIComponent(branch)}`;
    return (await this.#client.json(token.token, 'GET', path, branchSchema)).commit.sha;
  }

  /**
   * One call for both forms: GitHub's commit endpoint takes a sha or `heads/<branch>`, which cannot be
   * mistaken for a tag or a sha-like branch name. An unknown sha or branch is a 422 there.
   */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const ref = 'branch' in at ? `heads/${filePath(at.branch)}` : encodeURIComponent(at.sha);
    const path = `${repoPath(repo)}/commits/${ref}`;
    const found = await this.#client.json(token.token, 'GET', path, commitSchema).catch((error: unknown) => {
      if (error instanceof SvcError && error.code === 'INVALID_INPUT') {
        const what = 'branch' in at ? `branch ${at.branch}` : `commit ${at.sha}`;
        throw new SvcError('NOT_FOUND', `GitHub has no ${what} in ${repo.namespace}/${repo.name}`);
      }
      throw error;
    });
    return toScmCommit(found);
  }

  changedFiles(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    return gitHubChangedFiles(this.#client, token.token, repo, change);
  }

  teams(token: ScmToken): Promise<ScmTeam[]> {
    return gitHubTeams(this.#client, token.token);
  }

  findTeam(token: ScmToken, org: string, slug: string): Promise<ScmTeam> {
    return gitHubFindTeam(this.#client, token.token, org, slug);
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

  async setStatus(token: ScmToken, repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    await this.#client.send(
      token.token,
      'POST',
      `${repoPath(repo)}/statuses/${encodeURIComponent(commit)}`,
      {
        state: toGitHubState(status.state),
        ...(status.targetUrl === '' ? {} : { target_url: status.targetUrl }),
        description: statusDescription(status.description),
        context: status.context,
      },
      STATUS_CALL,
    );
  }

  /** GitHub takes the OAuth token as the login with any password; `x-oauth-basic` is the documented one. */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    return netrcFor(this.#git, repo, { login: token.token, password: 'x-oauth-basic' });
  }
}
