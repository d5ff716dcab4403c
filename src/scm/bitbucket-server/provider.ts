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
  ScmOAuth1Login,
  ScmProvider,
  ScmRepo,
  ScmRepoRef,
  ScmStatus,
  ScmToken,
} from '../../core/scm.js';
import { gitAuthOf, netrcFor, type GitAuthOptions } from '../netrc.js';
import { oauth1LoginOf } from '../oauth1-login.js';
import { filePath } from '../paths.js';
import { providerTransport } from '../transport.js';
import { bitbucketServerChangedFiles } from './changed-files.js';
import { BitbucketServerClient } from './client.js';
import { avatarOf, repoPath, toBitbucketServerState, toScmCommit, toScmRepo } from './convert.js';
import { BITBUCKET_SERVER } from './errors.js';
import { createHook, deleteHook } from './hooks.js';
import { API, bitbucketServerEndpoints, type BitbucketServerOptions } from './options.js';
import { parseHook } from './parse.js';
import { defaultBranch, listRepos, readPermission } from './repos.js';
import { branchSchema, commitSchema, projectSchema, repoSchema, userSchema } from './schemas.js';
import { STATUS_CALL } from '../rest-client.js';

/**
 * Bitbucket Server and Data Center behind svc's ScmProvider (settings SVC_SCMF_*), from the REST
 * API 1.0, the build status API and the application links' OAuth 1.0a (RSA-SHA1) login.
 * Repositories are `<PROJECT KEY>/<slug>` (`~USER/<slug>` for personal ones); projects play the
 * part of organizations.
 */
export class BitbucketServerProvider implements ScmProvider {
  readonly name = 'scmf';
  readonly reportsStatus = true;
  readonly login: ScmOAuth1Login;
  readonly #web: string;
  readonly #git: GitAuthOptions;
  readonly #client: BitbucketServerClient;

  constructor(options: BitbucketServerOptions) {
    const endpoints = bitbucketServerEndpoints(options.server);
    this.#web = endpoints.web;
    this.#git = gitAuthOf(options);
    const transport = providerTransport(options);
    this.#client = new BitbucketServerClient(endpoints.web, options, transport);
    this.login = oauth1LoginOf({
      provider: BITBUCKET_SERVER,
      requestTokenUrl: endpoints.requestToken,
      authorizeUrl: endpoints.authorize,
      accessTokenUrl: endpoints.accessToken,
      consumerKey: options.consumerKey,
      privateKey: options.privateKey,
      transport,
      ...(options.now === undefined ? {} : { now: options.now }),
    });
  }

  /**
   * The token's user: `whoami` names them, `GET /users/{slug}` describes them. The username is the
   * slug unless it has characters a slug cannot (`@`, spaces): then the user is searched by name.
   */
  async currentUser(token: ScmToken): Promise<ScmAccount> {
    const user = await this.#user(token);
    return {
      uid: user.id === undefined ? '' : String(user.id),
      login: user.slug,
      email: user.emailAddress ?? '',
      avatar: avatarOf(this.#web, user.slug),
    };
  }

  async #user(token: ScmToken) {
    const whoami = (await this.#client.raw(token.token, '/plugins/servlet/applinks/whoami')).text.trim();
    // An answer without a name is an anonymous request: the token was not accepted.
    if (whoami === '') throw new SvcError('UNAUTHORIZED', `${BITBUCKET_SERVER}: the token is not accepted`);
    try {
      return await this.#client.json(
        token.token,
        'GET',
        `${API}/users/${encodeURIComponent(whoami)}`,
        userSchema,
      );
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== 'NOT_FOUND') throw error;
      const path = `${API}/users?filter=${encodeURIComponent(whoami)}`;
      const found = (await this.#client.list(token.token, path, userSchema)).find(
        (user) => user.name.toLowerCase() === whoami.toLowerCase(),
      );
      if (found === undefined) throw error;
      return found;
    }
  }

  /** The keys of the projects the user was granted at least read access to (PROJECT_READ). */
  async organizations(token: ScmToken): Promise<string[]> {
    return (await this.#projects(token, 'PROJECT_READ')).map((project) => project.key);
  }

  #projects(token: ScmToken, permission: 'PROJECT_READ' | 'PROJECT_ADMIN') {
    return this.#client.list(token.token, `${API}/projects?permission=${permission}`, projectSchema);
  }

  /**
   * A member of a project holds PROJECT_READ on it, an administrator PROJECT_ADMIN; the owner of a
   * personal project (`~USER`) administers it. Project keys are compared without case.
   */
  async membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    const key = namespace.toLowerCase();
    if (key.startsWith('~')) {
      const own = key === `~${(await this.#user(token)).slug.toLowerCase()}`;
      return { member: own, admin: own };
    }
    const has = async (permission: 'PROJECT_READ' | 'PROJECT_ADMIN') =>
      (await this.#projects(token, permission)).some((project) => project.key.toLowerCase() === key);
    if (await has('PROJECT_ADMIN')) return { member: true, admin: true };
    return { member: await has('PROJECT_READ'), admin: false };
  }

  listRepos(token: ScmToken): Promise<ScmRepo[]> {
    return listRepos(this.#client, token.token, this.#web);
  }

  /** `GET /projects/{key}/repos/{slug}`, the user's permission on it, and its default branch. */
  async findRepo(token: ScmToken, repo: ScmRepoRef): Promise<ScmRepo> {
    const found = await this.#client.json(token.token, 'GET', `${API}${repoPath(repo)}`, repoSchema);
    const perm = await readPermission(this.#client, token.token, found);
    return toScmRepo(found, perm, await defaultBranch(this.#client, token.token, found), this.#web);
  }

  /**
   * `GET …/raw/{path}?at={commit}`. Bitbucket answers 404 alike for a missing file, commit or
   * repository: the commit is then looked up, so that only a missing file is `undefined`.
   */
  async fileContents(
    token: ScmToken,
    repo: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const raw = `${API}${repoPath(repo)}/raw/${filePath(path)}?at=${encodeURIComponent(commit)}`;
    try {
      return (await this.#client.raw(token.token, raw)).text;
    } catch (error) {
      if (!(error instanceof SvcError) || error.code !== 'NOT_FOUND') throw error;
      await this.findCommit(token, repo, { sha: commit });
      return undefined;
    }
  }

  /** `GET …/branches?filterText=` matches parts of names: the branch is the one named exactly so. */
  async branchHead(token: ScmToken, repo: ScmRepoRef, branch: string): Promise<string> {
    const path = `${API}${repoPath(repo)}/branches?filterText=${encodeURIComponent(branch)}`;
    const found = (await this.#client.list(token.token, path, branchSchema)).find(
      (candidate) => candidate.displayId === branch,
    );
    if (found === undefined)
      throw new SvcError(
        'NOT_FOUND',
        `${BITBUCKET_SERVER}: ${repo.namespace}/${repo.name} has no branch ${branch}`,
      );
    return found.latestCommit;
  }

  /** `GET …/commits/{id}`: for an annotated tag's object, the commit it points at. */
  async findCommit(token: ScmToken, repo: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const sha = 'branch' in at ? await this.branchHead(token, repo, at.branch) : at.sha;
    const path = `${API}${repoPath(repo)}/commits/${encodeURIComponent(sha)}`;
    return toScmCommit(await this.#client.json(token.token, 'GET', path, commitSchema), repo, this.#web);
  }

  changedFiles(token: ScmToken, repo: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    return bitbucketServerChangedFiles(this.#client, token.token, repo, change);
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
   * `POST /rest/build-status/1.0/commits/{sha}` (every version, where any licensed user may post):
   * the key names the status, so a post with the same key replaces it. Names are cut to the 255
   * characters Bitbucket stores.
   */
  async setStatus(token: ScmToken, _repo: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    await this.#client.send(
      token.token,
      'POST',
      `/rest/build-status/1.0/commits/${encodeURIComponent(commit)}`,
      {
        state: toBitbucketServerState(status.state),
        key: status.context.slice(0, 255),
        name: status.context.slice(0, 255),
        url: status.targetUrl,
        description: status.description,
      },

      STATUS_CALL,
    );
  }

  /**
   * Bitbucket Server does not take OAuth tokens for git over HTTP: private repositories are cloned
   * with the SVC_GIT_USERNAME/SVC_GIT_PASSWORD account (a personal access token as the password).
   * Without it a private clone has no credentials to offer, which the server says at start.
   */
  netrc(_token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    if (!this.#git.gitUsername || !this.#git.gitPassword) return undefined;
    return netrcFor(this.#git, repo, { login: this.#git.gitUsername, password: this.#git.gitPassword });
  }
}
