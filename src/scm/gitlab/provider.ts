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
import { providerTransport } from '../transport.js';
import { gitLabChangedFiles } from './changed-files.js';
import { gitLabFindTeam, gitLabTeams } from './teams.js';
import { GitLabClient } from './client.js';
import { absoluteUrl, accessLevel, MAINTAINER, statusRef, toGitLabState, toScmRepo } from './convert.js';
import { GITLAB } from './errors.js';
import { createHook, deleteHook } from './hooks.js';
import { GITLAB_SCOPE, gitlabEndpoints, type GitLabOptions } from './options.js';
import { parseHook } from './parse.js';
import { projectPath, segment } from './paths.js';
import {
  avatarSchema,
  branchSchema,
  commitSchema,
  groupSchema,
  memberSchema,
  projectSchema,
  userSchema,
  type GitLabProject,
} from './schemas.js';
import { STATUS_CALL } from '../rest-client.js';

/**
 * GitLab (gitlab.com and self-managed) behind svc's ScmProvider (settings SVC_SCMD_*), from its REST
 * API v4: OAuth2 login with the `api` scope and two-hour tokens that are refreshed, groups and their
 * members, projects across pages, raw files, commits, changed files, hooks with a secret token,
 * commit statuses.
 */
export class GitLabProvider implements ScmProvider {
  readonly name = 'scmd';
  readonly reportsStatus = true;
  readonly login: ScmOAuth2Login;
  readonly #server: string;
  readonly #git: GitAuthOptions;
  readonly #client: GitLabClient;

  constructor(options: GitLabOptions) {
    const endpoints = gitlabEndpoints(options.server);
    this.#server = endpoints.server;
    this.#git = gitAuthOf(options);
    const transport = providerTransport(options);
    this.#client = new GitLabClient(endpoints.api, transport);
    const oauth: OAuth2Client = {
      provider: GITLAB,
      authorizeUrl: endpoints.authorize,
      tokenUrl: endpoints.token,
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientAuth: 'body',
      transport,
    };
    this.login = oauth2LoginOf(oauth, { scope: GITLAB_SCOPE });
  }

  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    return {
      uid: String(user.id),
      login: user.username,
      email: user.email || user.public_email || '',
      avatar: absoluteUrl(user.avatar_url, this.#server),
    };
  }

  /** The groups the user is a member of, by their full paths (`parent/child`). */
  async organizations(token: ScmToken): Promise<string[]> {
    const groups = await this.#client.list(token.token, '/groups?min_access_level=10', groupSchema);
    return groups.map((group) => group.full_path);
  }

  /**
   * The user's level in the group, inherited ones included (`GET /groups/:id/members/all/:user_id`):
   * a member from Guest on, an administrator from Maintainer on (who manages the group's CI settings).
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    const user = await this.#client.json(token.token, 'GET', '/user', userSchema);
    try {
      const group = await this.#client.json(token.token, 'GET', `/groups/${segment(namespace)}`, groupSchema);
      const member = await this.#client.json(
        token.token,
        'GET',
        `/groups/${group.id}/members/all/${user.id}`,
        memberSchema,
      );
      return { member: member.access_level >= 10, admin: member.access_level >= MAINTAINER };
    } catch (error) {
      if (error instanceof SvcError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN'))
        return { member: false, admin: false };
      throw error;
    }
  }

  async listRepos(token: ScmToken): Promise<ScmRepo[]> {
    const projects = await this.#client.list(
      token.token,
      '/projects?membership=true&archived=false',
      projectSchema,
    );
    const userId = this.#userId(token);
    const repos: ScmRepo[] = [];
    for (const project of projects)
      repos.push(toScmRepo(project, await this.#levelOf(token, project, userId)));
    return repos;
  }

  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    const project = await this.#client.json(token.token, 'GET', projectPath(repo), projectSchema);
    return toScmRepo(project, await this.#levelOf(token, project, this.#userId(token)));
  }

  /**
   * The project's `permissions` say the user's level, except when it comes from a parent group or a
   * shared group: both are null then, and the project's members (inherited ones included) say it.
   */
  async #levelOf(token: ScmToken, project: GitLabProject, userId: () => Promise<number>): Promise<number> {
    const level = accessLevel(project);
    if (level !== undefined) return level;
    const user = { id: await userId() };
    try {
      const member = await this.#client.json(
        token.token,
        'GET',
        `/projects/${project.id}/members/all/${user.id}`,
        memberSchema,
      );
      return member.access_level;
    } catch (error) {
      // A public or internal project the user is no member of: readable only.
      if (error instanceof SvcError && error.code === 'NOT_FOUND') return 0;
      throw error;
    }
  }

  /** The user's id, read once (and only when a project needs it) however many projects ask. */
  #userId(token: ScmToken): () => Promise<number> {
    let read: Promise<number> | undefined;
    return () =>
      (read ??= this.#client.json(token.token, 'GET', '/user', userSchema).then((user) => user.id));
  }

  /**
   * `GET …/repository/files/:path/raw?ref=`: GitLab's 404 says which is missing, "404 File Not Found"
   * (an answer: undefined) or "404 Commit Not Found" / "404 Project Not Found" (NOT_FOUND).
   */
  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const url = `${projectPath(repo)}/repository/files/${segment(path)}/raw?ref=${encodeURIComponent(commit)}`;
    try {
      return (await this.#client.raw(token.token, url)).text;
    } catch (error) {
      if (
        error instanceof SvcError &&
        error.code === 'NOT_FOUND' &&
        error.message.endsWith('404 File Not Found')
      )
        return undefined;
      throw error;
    }
  }

  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${projectPath(repo)}/repository/branches/${segment(branch)}`;
    return (await this.#client.json(token.token, 'GET', path, branchSchema)).commit.id;
  }

  /**
   * `GET …/repository/commits/:sha` (a branch is read as its head first, so that a tag of the same
   * name cannot answer). GitLab's commits name no account: the author's login stays empty and the
   * avatar is the one GitLab gives for the email (`GET /avatar?email=`).
   */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const sha = 'branch' in at ? await this.branchHead(token, repo, at.branch) : at.sha;
    const commit = await this.#client.json(
      token.token,
      'GET',
      `${projectPath(repo)}/repository/commits/${encodeURIComponent(sha)}`,
      commitSchema,
    );
    const avatar = await this.#client
      .json(token.token, 'GET', `/avatar?email=${encodeURIComponent(commit.author_email)}`, avatarSchema)
      .then((answer) => absoluteUrl(answer.avatar_url, this.#server))
      .catch(() => '');
    return {
      sha: commit.id,
      message: commit.message.replace(/\n+$/, ''),
      link: commit.web_url,
      authorLogin: '',
      authorName: commit.author_name,
      authorEmail: commit.author_email,
      authorAvatar: avatar,
    };
  }

  changedFiles(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    return gitLabChangedFiles(this.#client, token.token, repo, change);
  }

  teams(token: ScmToken): Promise<ScmTeam[]> {
    return gitLabTeams(this.#client, token.token);
  }

  findTeam(token: ScmToken, org: string, slug: string): Promise<ScmTeam> {
    return gitLabFindTeam(this.#client, token.token, org, slug);
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
   * `POST /projects/:id/statuses/:sha`, filed under the build's branch or tag. GitLab refuses to
   * move a status to the state it is in (after a restart svc may post the current state again):
   * that refusal changes nothing and is no failure.
   */
  async setStatus(token: ScmToken, repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    try {
      await this.#client.send(
        token.token,
        'POST',
        `${projectPath(repo)}/statuses/${encodeURIComponent(commit)}`,
        {
          state: toGitLabState(status.state),
          name: status.context,
          target_url: status.targetUrl,
          description: status.description,
          ref: statusRef(status.ref),
        },

        STATUS_CALL,
      );
    } catch (error) {
      if (
        error instanceof SvcError &&
        error.code === 'INVALID_INPUT' &&
        error.message.includes('Cannot transition status')
      )
        return;
      throw error;
    }
  }

  /** GitLab's git over HTTP takes an OAuth token as the password of the user `oauth2`. */
  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    return netrcFor(this.#git, repo, { login: 'oauth2', password: token.token });
  }
}
