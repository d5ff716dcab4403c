import { SvcError } from '../../core/errors.js';
import type {
  ScmAccount,
  ScmChange,
  ScmChangedFiles,
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
import { filePath } from '../paths.js';
import { gitAuthOf, netrcFor, type GitAuthOptions } from '../netrc.js';
import { oauth2LoginOf } from '../oauth2.js';
import { providerTransport } from '../transport.js';
import { bitbucketChangedFiles } from './changed-files.js';
import { BitbucketClient } from './client.js';
import { statusKey, toBitbucketState, toScmCommit, toScmRepo } from './convert.js';
import { BITBUCKET } from './errors.js';
import { createHook, deleteHook, repoPath } from './hooks.js';
import { bitbucketEndpoints, type BitbucketOptions } from './options.js';
import { parseHook } from './parse.js';
import {
  branchSchema,
  commitSchema,
  emailSchema,
  repoPermissionSchema,
  repoSchema,
  userSchema,
  workspaceAccessSchema,
  workspacePermissionSchema,
} from './schemas.js';
import { STATUS_CALL } from '../rest-client.js';

/**
 * Bitbucket Cloud behind svc's ScmProvider (settings SVC_SCMA_*), from its REST API 2.0 as it stands
 * after Atlassian removed the cross-workspace listings in 2026 (CHANGE-2770): workspaces come from
 * `GET /user/workspaces`, repositories and their permissions are read per workspace.
 */
export class BitbucketProvider implements ScmProvider {
  readonly name = 'scma';
  readonly reportsStatus = true;
  readonly login: ScmOAuth2Login;
  readonly #git: GitAuthOptions;
  readonly #client: BitbucketClient;

  constructor(options: BitbucketOptions) {
    const endpoints = bitbucketEndpoints(options.server, options.apiServer);
    this.#git = gitAuthOf(options);
    // bitbucket.org has a public certificate: there is no SKIP_VERIFY setting for it.
    const transport = providerTransport({ skipVerify: false, fetch: options.fetch });
    this.#client = new BitbucketClient(endpoints.api, transport);
    // Scopes are the consumer's own (set where it was registered), not asked for in the request.
    this.login = oauth2LoginOf({
      provider: BITBUCKET,
      authorizeUrl: endpoints.authorize,
      tokenUrl: endpoints.token,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientAuth: 'basic',
      transport,
      ...(options.trace === undefined ? {} : { trace: options.trace }),
    });
  }

  /** `GET /user` (login: the `nickname`) and the primary address of `GET /user/emails`. */
  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    const emails = await this.#client
      .list(token.token, '/user/emails', emailSchema)
      .catch((error: unknown) => {
        // Without the consumer's `email` scope the account simply has no email.
        if (error instanceof SvcError && error.code === 'FORBIDDEN') return [];
        throw error;
      });
    return {
      uid: user.uuid,
      login: user.nickname,
      email: emails.find((email) => email.is_primary)?.email ?? '',
      avatar: user.links?.avatar?.href ?? '',
    };
  }

  /** The workspaces the user can reach, by their slugs. */
  async organizations(token: ScmToken): Promise<string[]> {
    const member: string[] = [];
    for (const workspace of await this.#workspaces(token)) {
      if ((await this.membership(token, workspace)).member) member.push(workspace);
    }
    return member;
  }

  /** Every workspace the user can reach: its members', and those where they were given repositories. */
  async #workspaces(token: ScmToken): Promise<string[]> {
    const access = await this.#client.list(token.token, '/user/workspaces', workspaceAccessSchema);
    return access.map((entry) => entry.workspace.slug);
  }

  /**
   * `GET /user/workspaces/{ws}/permission`: owners administer a workspace, members and project
   * creators belong to it; a collaborator (given repositories only) and a stranger (403) do not.
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    try {
      const path = `/user/workspaces/${encodeURIComponent(namespace)}/permission`;
      const { permission } = await this.#client.json(token.token, 'GET', path, workspacePermissionSchema);
      return { member: permission !== 'collaborator', admin: permission === 'owner' };
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))
        return { member: false, admin: false };
      throw error;
    }
  }

  /** Per workspace: its repositories the user is a member of, joined with the user's permissions there. */
  async listRepos(token: ScmToken): Promise<ScmRepo[]> {
    const repos: ScmRepo[] = [];
    for (const workspace of await this.#workspaces(token)) {
      const ws = encodeURIComponent(workspace);
      const listed = await this.#client.list(token.token, `/repositories/${ws}?role=member`, repoSchema);
      const permissions = await this.#client.list(
        token.token,
        `/user/workspaces/${ws}/permissions/repositories`,
        repoPermissionSchema,
      );
      const byName = new Map(permissions.map((p) => [p.repository.full_name.toLowerCase(), p.permission]));
      for (const repo of listed)
        repos.push(toScmRepo(repo, byName.get(repo.full_name.toLowerCase()) ?? 'read'));
    }
    return repos;
  }

  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    const found = await this.#client.json(token.token, 'GET', repoPath(repo), repoSchema).catch(hidden);
    const query = encodeURIComponent(`repository.full_name="${found.full_name}"`);
    const path = `/user/workspaces/${encodeURIComponent(repo.namespace)}/permissions/repositories?q=${query}`;
    const [permission] = await this.#client
      .list(token.token, path, repoPermissionSchema)
      .catch((error: unknown) => {
        if (error instanceof SvcError && (error.code === 'FORBIDDEN' || error.code === 'NOT_FOUND'))
          return [];
        throw error;
      });
    return toScmRepo(found, permission?.permission ?? 'read');
  }

  /** `GET …/src/{commit}/{path}`: "No such file" is an answer; a missing commit or repository is NOT_FOUND. */
  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const file = filePath(path);
    try {
      return (
        await this.#client.raw(token.token, `${repoPath(repo)}/src/${encodeURIComponent(commit)}/${file}`)
      ).text;
    } catch (error) {
      if (!(error instanceof SvcError) || (error.code !== 'NOT_FOUND' && error.code !== 'FORBIDDEN'))
        throw error;
      await this.findCommit(token, repo, { sha: commit });
      return undefined;
    }
  }

  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${repoPath(repo)}/refs/branches/${encodeURIComponent(branch)}`;
    return (await this.#client.json(token.token, 'GET', path, branchSchema).catch(hidden)).target.hash;
  }

  /** `GET …/commit/{sha}` (also a short hash); a branch is read as its head first. */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const sha = 'branch' in at ? await this.branchHead(token, repo, at.branch) : at.sha;
    const path = `${repoPath(repo)}/commit/${encodeURIComponent(sha)}`;
    return toScmCommit(await this.#client.json(token.token, 'GET', path, commitSchema).catch(hidden));
  }

  changedFiles(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    return bitbucketChangedFiles(this.#client, token.token, repo, change);
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

  /**
   * `POST …/commit/{sha}/statuses/build`: the key (at most 40 characters) names the status, so a post
   * with the same key replaces it; `refname` is the build's branch.
   */
  async setStatus(token: ScmToken, repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    const branch = /^refs\/heads\/(.+)$/.exec(status.ref)?.[1];
    await this.#client.send(
      token.token,
      'POST',
      `${repoPath(repo)}/commit/${encodeURIComponent(commit)}/statuses/build`,
      {
        key: statusKey(status.context),
        name: status.context,
        state: toBitbucketState(status.state),
        url: status.targetUrl,
        description: status.description,
        ...(branch === undefined ? {} : { refname: branch }),
      },

      STATUS_CALL,
    );
  }

  /** Bitbucket's git over HTTPS takes an OAuth token as the password of the user `x-token-auth`. */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    return netrcFor(this.#git, repo, { login: 'x-token-auth', password: token.token });
  }
}

/**
 * Bitbucket answers 403 for reading a private repository the user cannot see: for svc (and the
 * ScmProvider contract) that repository does not exist.
 */
function hidden(error: unknown): never {
  if (error instanceof SvcError && error.code === 'FORBIDDEN') throw new SvcError('NOT_FOUND', error.message);
  throw error;
}
