import { join } from 'node:path';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '../../core/errors.js';
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
  ScmPasswordLogin,
  ScmProvider,
  ScmRepo,
  ScmRepoRef,
  ScmStatus,
  ScmToken,
} from '../../core/scm.js';
import { netrcFor, type GitAuthOptions } from '../netrc.js';
import { ForgeState, type ForgeAccount, type ForgeRepo, type ForgeRole } from './forge-state.js';
import { GitRepository } from './git-repo.js';
import { parseLocalHook } from './hooks.js';
import { verifyPassword } from './passwords.js';

/** The built-in provider's settings. */
export interface LocalGitOptions extends GitAuthOptions {
  /** SVC_SCML_ROOT: the repositories and the forge's records. */
  root: string;
  /** svc's address as browsers and `git` on people's machines reach it (SVC_SERVER_PROTO://SVC_SERVER_HOST). */
  publicUrl: string;
  /** The address runners' clone steps reach svc by (default: publicUrl). */
  cloneUrl?: string;
  /** The records, when another provider over the same folder holds them already (tests). */
  state?: ForgeState;
}

const RANK: Record<ForgeRole, number> = { read: 1, write: 2, admin: 3 };

/**
 * The built-in git provider (`scml`, svc's addition; docs/local-git.md): repositories svc hosts
 * itself over Smart HTTP, accounts with passwords svc keeps (scrypt), commit statuses it stores, and
 * webhooks it sends itself when a push lands. For trying svc without any outside account, and for
 * small teams on one machine; not a code-hosting product.
 */
export class LocalGitProvider implements ScmProvider {
  readonly name = 'scml';
  readonly reportsStatus = true;
  readonly login: ScmPasswordLogin;
  readonly state: ForgeState;
  readonly #options: LocalGitOptions;
  #cloneBase: string;

  constructor(options: LocalGitOptions) {
    this.#options = options;
    this.#cloneBase = (options.cloneUrl ?? options.publicUrl).replace(/\/+$/, '');
    this.state = options.state ?? new ForgeState(options.root);
    this.login = {
      kind: 'password',
      account: 'your account on this svc server',
      login: (username, password, known) => this.#passwordLogin(username, password, known),
    };
  }

  async #passwordLogin(username: string, password: string, known?: ScmToken): Promise<ScmToken> {
    const account = this.state.account(username);
    // The same work whether the account exists or not: the answer's time tells nothing.
    const valid = await verifyPassword(password, account?.passwordHash || DUMMY_HASH);
    if (account === undefined || !valid) throw new UnauthorizedError('wrong user name or password');
    if (known !== undefined && this.state.accountOfToken(known.token)?.id === account.id) return known;
    return { token: this.state.issueToken(account.id), refresh: '', expiry: 0 };
  }

  /** The account a token is of; UNAUTHORIZED for an unknown token. */
  accountOf(token: ScmToken): ForgeAccount {
    const account = this.state.accountOfToken(token.token);
    if (account === undefined) throw new UnauthorizedError('the local git token is not known (log in again)');
    return account;
  }

  /** Where a repository's bare repository is on disk. */
  repository(repo: Pick<ForgeRepo, 'owner' | 'name'>): GitRepository {
    return new GitRepository(join(this.#options.root, 'repos', repo.owner, `${repo.name}.git`));
  }

  /** Runners reach svc at `url` from now on (the local runner's containers: the Docker bridge's gateway). */
  useCloneUrl(url: string): void {
    this.#cloneBase = url.replace(/\/+$/, '');
  }

  /** An account's picture, which svc draws itself (avatar.ts), at the git endpoint. */
  avatarUrl(login: string): string {
    return `${this.#options.publicUrl.replace(/\/+$/, '')}/git/-/avatar/${encodeURIComponent(login)}.svg`;
  }

  /** The clone URL people use from their machines (`git remote add`). */
  publicCloneUrl(repo: Pick<ForgeRepo, 'owner' | 'name'>): string {
    return `${this.#options.publicUrl.replace(/\/+$/, '')}/git/${repo.owner}/${repo.name}.git`;
  }

  /** The repository as `account` sees it; NOT_FOUND when it does not exist or is hidden from them. */
  #visible(account: ForgeAccount, ref: ScmRepoRef, needs: ForgeRole = 'read'): ForgeRepo {
    const repo = this.state.repo(ref.namespace, ref.name);
    const role = repo === undefined ? undefined : this.roleOf(account, repo);
    if (repo === undefined || role === undefined)
      throw new NotFoundError(`repository ${ref.namespace}/${ref.name}`);
    if (RANK[role] < RANK[needs])
      throw new ForbiddenError(
        `${account.login} may not ${needs === 'admin' ? 'administer' : 'push to'} ${repo.owner}/${repo.name}`,
      );
    return repo;
  }

  /**
   * The account's role: its own, or read on a public repository; an administrator administers all.
   * Anonymous (undefined) reads public repositories only.
   */
  roleOf(account: ForgeAccount | undefined, repo: ForgeRepo): ForgeRole | undefined {
    if (account === undefined) return repo.private ? undefined : 'read';
    if (account.admin) return 'admin';
    return this.state.role(repo.id, account.login) ?? (repo.private ? undefined : 'read');
  }

  #toScmRepo(account: ForgeAccount, repo: ForgeRepo): ScmRepo {
    const role = this.roleOf(account, repo) ?? 'read';
    const base = this.#cloneBase;
    return {
      uid: String(repo.id),
      namespace: repo.owner,
      namespaceUid: namespaceUid(this.state.account(repo.owner), repo.owner),
      name: repo.name,
      cloneUrl: `${base}/git/${repo.owner}/${repo.name}.git`,
      cloneUrlSsh: '',
      link: `${this.#options.publicUrl.replace(/\/+$/, '')}/${repo.owner}/${repo.name}`,
      defaultBranch: repo.defaultBranch,
      private: repo.private,
      visibility: repo.private ? 'private' : 'public',
      perm: { read: true, write: RANK[role] >= 2, admin: role === 'admin' },
    };
  }

  currentUser(token: ScmToken): Promise<ScmAccount> {
    return settle(() => {
      const account = this.accountOf(token);
      return {
        uid: String(account.id),
        login: account.login,
        email: account.email,
        avatar: this.avatarUrl(account.login),
      };
    });
  }

  /** The local provider has no organizations: every namespace is an account. */
  organizations(token: ScmToken): Promise<string[]> {
    return settle(() => {
      this.accountOf(token);
      return [];
    });
  }

  membership(token: ScmToken, namespace: string): Promise<ScmMembership> {
    return settle(() => {
      const own = this.accountOf(token).login.toLowerCase() === namespace.toLowerCase();
      return { member: own, admin: own };
    });
  }

  listRepos(token: ScmToken): Promise<ScmRepo[]> {
    return settle(() => {
      const account = this.accountOf(token);
      return (
        this.state
          .repos()
          // Those the account owns or is a member of (an administrator: all), not every public one.
          .filter((repo) => account.admin || this.state.role(repo.id, account.login) !== undefined)
          .map((repo) => this.#toScmRepo(account, repo))
      );
    });
  }

  findRepo(token: ScmToken, ref: ScmRepoRef): Promise<ScmRepo> {
    return settle(() => {
      const account = this.accountOf(token);
      return this.#toScmRepo(account, this.#visible(account, ref));
    });
  }

  async fileContents(
    token: ScmToken,
    ref: ScmRepoRef,
    path: string,
    commit: string,
  ): Promise<string | undefined> {
    const repo = this.#visible(this.accountOf(token), ref);
    const git = this.repository(repo);
    const sha = /^[0-9a-f]{40}$/.test(commit) ? commit : await git.branchHead(commit);
    return sha === undefined ? undefined : git.file(sha, path);
  }

  async branchHead(token: ScmToken, ref: ScmRepoRef, branch: string): Promise<string> {
    const repo = this.#visible(this.accountOf(token), ref);
    const head = await this.repository(repo).branchHead(branch);
    if (head === undefined) throw new NotFoundError(`branch ${branch} of ${repo.owner}/${repo.name}`);
    return head;
  }

  async findCommit(token: ScmToken, ref: ScmRepoRef, at: ScmCommitRef): Promise<ScmCommit> {
    const repo = this.#visible(this.accountOf(token), ref);
    const git = this.repository(repo);
    const sha = 'branch' in at ? await git.branchHead(at.branch) : at.sha;
    const commit = sha === undefined ? undefined : await git.commit(sha);
    if (commit === undefined) {
      const what = 'branch' in at ? `branch ${at.branch}` : `commit ${at.sha}`;
      throw new NotFoundError(`${what} of ${repo.owner}/${repo.name}`);
    }
    const author = this.state.accounts().find((a) => a.email !== '' && a.email === commit.authorEmail);
    return {
      sha: commit.sha,
      message: commit.message,
      // svc's repository page: the provider has no page of its own for a commit.
      link: `${this.#options.publicUrl.replace(/\/+$/, '')}/${repo.owner}/${repo.name}#${commit.sha}`,
      authorLogin: author?.login ?? '',
      authorName: commit.authorName,
      authorEmail: commit.authorEmail,
      authorAvatar: this.avatarUrl(author?.login ?? commit.authorName),
    };
  }

  async changedFiles(token: ScmToken, ref: ScmRepoRef, change: ScmChange): Promise<ScmChangedFiles> {
    if (change.kind === 'pull') return { known: false, reason: 'the built-in provider has no pull requests' };
    if (/^0*$/.test(change.before))
      return {
        known: false,
        reason: 'the push created the branch: there is no earlier commit to compare with',
      };
    const repo = this.#visible(this.accountOf(token), ref);
    const files = await this.repository(repo).changedFiles(change.before, change.after);
    if (files === undefined)
      return {
        known: false,
        reason: `the repository no longer has ${change.before.slice(0, 12)} (a forced push) to compare with`,
      };
    return { known: true, files };
  }

  createHook(token: ScmToken, ref: ScmRepoRef, hook: { url: string; secret: string }): Promise<void> {
    return settle(() => {
      const repo = this.#visible(this.accountOf(token), ref, 'admin');
      this.state.putHook(repo.id, hook);
    });
  }

  deleteHook(token: ScmToken, ref: ScmRepoRef, url: string): Promise<void> {
    return settle(() => {
      const repo = this.#visible(this.accountOf(token), ref, 'admin');
      this.state.deleteHooks(repo.id, url);
    });
  }

  parseHook(
    request: ScmHookRequest,
    secretOf: (repo: ScmRepoRef & { uid: string }) => Promise<string | undefined>,
  ): Promise<ScmHookResult> {
    return parseLocalHook(request, secretOf);
  }

  setStatus(token: ScmToken, ref: ScmRepoRef, commit: string, status: ScmStatus): Promise<void> {
    return settle(() => {
      const repo = this.#visible(this.accountOf(token), ref, 'write');
      this.state.putStatus(repo.id, {
        sha: commit,
        context: status.context,
        state: status.state,
        description: status.description,
        targetUrl: status.targetUrl,
      });
    });
  }

  netrc(token: ScmToken, repo: ScmRepo | { private: boolean; cloneUrl: string }): ScmNetrc | undefined {
    const login = this.state.accountOfToken(token.token)?.login ?? 'svc';
    return netrcFor(this.#options, repo, { login, password: token.token });
  }
}

/** A synchronous answer as a promise: its errors become rejections, as the interface's callers expect. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * A namespace's id: its account's, or for a namespace no account has (made by an administrator),
 * one derived from its name.
 */
function namespaceUid(account: ForgeAccount | undefined, owner: string): string {
  return account === undefined ? `namespace:${owner.toLowerCase()}` : String(account.id);
}

/** A hash to check a password against when the account does not exist (see #passwordLogin). */
const DUMMY_HASH = 'scrypt$32768$8$1$c3ZjLWR1bW15LXNhbHQ$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
