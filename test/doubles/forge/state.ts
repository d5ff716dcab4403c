import { createHash, randomBytes } from 'node:crypto';

/** An account known to the double. */
export interface User {
  id: number;
  login: string;
  /** The public profile email; null like an account that keeps its email private. */
  publicEmail: string | null;
  /** The primary email, listed by `GET /user/emails`. */
  primaryEmail: string;
  /** Logins of the organizations the user is a member of, listed by `GET /user/orgs`. */
  orgs: string[];
  /** Those of `orgs` the user administers (role `admin`, an owner), lower case. */
  orgAdmin: string[];
}

/** A commit: the whole tree it points at, path → content. */
export interface Commit {
  sha: string;
  parent: string | undefined;
  /** The branch's head before this commit; undefined when the commit created the branch. */
  branchBefore: string | undefined;
  message: string;
  author: string;
  timestamp: string;
  tree: ReadonlyMap<string, string>;
}

/** A repository webhook with its unmasked secret. */
export interface Hook {
  id: number;
  url: string;
  secret: string;
  contentType: string;
  insecureSsl: string;
  events: string[];
  active: boolean;
  created: string;
  updated: string;
}

/** A commit status as posted. */
export interface Status {
  id: number;
  state: string;
  context: string;
  description: string;
  target_url: string;
  creator: string;
  created: string;
}

/** A repository, with its git data, hooks and statuses. */
export interface Repo {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  defaultBranch: string;
  admins: Set<string>;
  writers: Set<string>;
  readers: Set<string>;
  branches: Map<string, string>;
  tags: Map<string, string>;
  commits: Map<string, Commit>;
  hooks: Hook[];
  statuses: Map<string, Status[]>;
  /** Pull request refs (`refs/pull/N/head` → sha); N counts from 1. */
  pulls: Map<number, string>;
  created: string;
  /** Where git clones it from, when a test serves the repository itself (a real git server). */
  cloneUrl: string | undefined;
}

/** What a test says of a new account. */
export interface NewUser {
  login: string;
  email?: string;
  /** Organizations the user is a member of. */
  orgs?: string[];
  /** Organizations the user administers (and so is a member of). */
  orgAdmin?: string[];
}

/** What a test says of a new repository. */
export interface NewRepo {
  owner: string;
  name: string;
  private?: boolean;
  defaultBranch?: string;
  admins?: string[];
  writers?: string[];
  readers?: string[];
  /** The `clone_url` to report: a real git server the test runs (default: one on the double). */
  cloneUrl?: string;
}

/** The asking user's rights on a repository, as GitHub's `permissions` object names them. */
export interface Permissions {
  admin: boolean;
  maintain: boolean;
  push: boolean;
  triage: boolean;
  pull: boolean;
}

/** An OAuth code handed out by the authorize page, single use, valid ten minutes. */
export interface Grant {
  login: string;
  redirectUri: string | undefined;
  expires: number;
}

/**
 * Everything a git forge double knows (users, tokens, repositories with their git data, hooks,
 * statuses); plain in-memory maps, one instance per double. Shared by the doubles of every provider.
 */
export class ForgeState {
  readonly users = new Map<string, User>();
  readonly tokens = new Map<string, string>();
  readonly repos = new Map<string, Repo>();
  readonly grants = new Map<string, Grant>();
  #nextId = 1000;
  #commits = 0;
  /** Organizations' ids by lower-case name, handed out on first use. */
  readonly #orgIds = new Map<string, number>();

  nextId(): number {
    return this.#nextId++;
  }

  /** A new token for the user: `prefix` + `bytes` random bytes in hex (GitHub's OAuth tokens: `gho_` + 36). */
  newToken(login: string, prefix = 'gho_', bytes = 18): string {
    const token = `${prefix}${randomBytes(bytes).toString('hex')}`;
    this.tokens.set(token, login);
    return token;
  }

  /** Adds an account; `publicEmail` false keeps its email off its public profile (GitHub's default). */
  addUser(user: NewUser, publicEmail = true): User {
    if (this.user(user.login) !== undefined) throw new Error(`forge double: user ${user.login} exists`);
    const email = user.email ?? `${user.login}@example.com`;
    const added: User = {
      id: this.nextId(),
      login: user.login,
      publicEmail: publicEmail ? email : null,
      primaryEmail: email,
      orgs: [...new Set([...(user.orgs ?? []), ...(user.orgAdmin ?? [])])],
      orgAdmin: (user.orgAdmin ?? []).map((org) => org.toLowerCase()),
    };
    this.users.set(user.login.toLowerCase(), added);
    return added;
  }

  /**
   * Renames an account, as the provider lets a person do: the old name is free again for someone
   * else to register, while the id, the tokens and the organizations stay with the person.
   */
  renameUser(from: string, to: string): User {
    const user = this.user(from);
    if (user === undefined) throw new Error(`forge double: no user ${from}`);
    if (this.user(to) !== undefined) throw new Error(`forge double: user ${to} exists`);
    this.users.delete(from.toLowerCase());
    user.login = to;
    this.users.set(to.toLowerCase(), user);
    for (const [token, login] of this.tokens)
      if (login.toLowerCase() === from.toLowerCase()) this.tokens.set(token, to);
    return user;
  }

  /** The stable id of the organization (or group, workspace) `name`: the same for every repository. */
  orgId(name: string): number {
    const key = name.toLowerCase();
    const known = this.#orgIds.get(key);
    if (known !== undefined) return known;
    const id = this.nextId();
    this.#orgIds.set(key, id);
    return id;
  }

  /** The organization `name` was deleted and someone registered the name again: a new id. */
  recreateOrg(name: string): number {
    this.#orgIds.delete(name.toLowerCase());
    return this.orgId(name);
  }

  /** The id of a repository's owner: the user's, else the organization's. */
  ownerId(owner: string): number {
    return this.user(owner)?.id ?? this.orgId(owner);
  }

  /**
   * Adds a commit on a branch of the repository named `fullName`, by its owner unless `author` says;
   * a file whose content is null is removed.
   */
  commitTo(
    fullName: string,
    branch: string,
    files: Record<string, string | null>,
    message = 'update',
    author?: string,
    sha?: string,
  ): string {
    const repo = this.repoByFullName(fullName);
    return this.commit(repo, branch, files, message, author ?? repo.owner, sha);
  }

  /** The secret of the repository's hook for `url`; `override` wins (a forged or hook-less delivery). */
  hookSecret(repo: Repo, url: string, override?: string): string {
    if (override !== undefined) return override;
    const hook = repo.hooks.find((h) => h.url === url);
    if (hook === undefined)
      throw new Error(`forge double: ${repo.owner}/${repo.name} has no hook for ${url}`);
    return hook.secret;
  }

  /** Adds a repository (owned by a user or an organization); no commits yet. */
  addRepo(repo: NewRepo, defaultBranch: string): { id: number; fullName: string } {
    const fullName = `${repo.owner}/${repo.name}`;
    if (this.repos.has(fullName.toLowerCase())) throw new Error(`forge double: ${fullName} exists`);
    const lower = (logins?: string[]) => new Set((logins ?? []).map((l) => l.toLowerCase()));
    const id = this.nextId();
    this.repos.set(fullName.toLowerCase(), {
      id,
      owner: repo.owner,
      name: repo.name,
      private: repo.private ?? false,
      defaultBranch: repo.defaultBranch ?? defaultBranch,
      admins: lower(repo.admins),
      writers: lower(repo.writers),
      readers: lower(repo.readers),
      branches: new Map(),
      tags: new Map(),
      commits: new Map(),
      hooks: [],
      statuses: new Map(),
      pulls: new Map(),
      created: new Date().toISOString(),
      cloneUrl: repo.cloneUrl,
    });
    return { id, fullName };
  }

  /** Points a tag at a commit (default: the default branch's head); returns the sha. */
  tag(fullName: string, tag: string, sha?: string): string {
    const repo = this.repoByFullName(fullName);
    const at = sha ?? repo.branches.get(repo.defaultBranch);
    if (at === undefined || !repo.commits.has(at))
      throw new Error(`forge double: no commit to tag in ${fullName}`);
    repo.tags.set(tag, at);
    return at;
  }

  user(login: string): User | undefined {
    return this.users.get(login.toLowerCase());
  }

  /** Repositories are found case-insensitively, as GitHub and Gogs do. */
  repo(owner: string, name: string): Repo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  repoByFullName(fullName: string): Repo {
    const repo = this.repos.get(fullName.toLowerCase());
    if (repo === undefined) throw new Error(`forge double: no repository ${fullName}`);
    return repo;
  }

  permissions(repo: Repo, login: string | undefined): Permissions {
    const who = login?.toLowerCase();
    const admin = who !== undefined && (who === repo.owner.toLowerCase() || repo.admins.has(who));
    const push = admin || (who !== undefined && repo.writers.has(who));
    const pull = push || !repo.private || (who !== undefined && repo.readers.has(who));
    return { admin, maintain: admin, push, triage: push, pull };
  }

  /** Whether a user is the owner or a collaborator: what `GET /user/repos` lists. */
  isAffiliated(repo: Repo, login: string): boolean {
    const who = login.toLowerCase();
    return (
      who === repo.owner.toLowerCase() ||
      repo.admins.has(who) ||
      repo.writers.has(who) ||
      repo.readers.has(who)
    );
  }

  /**
   * Adds a commit on top of the branch (a new branch starts at the default branch's head): `files`
   * are written, those whose content is null removed.
   */
  commit(
    repo: Repo,
    branch: string,
    files: Record<string, string | null>,
    message: string,
    author: string,
    givenSha?: string,
  ): string {
    const parent = repo.branches.get(branch) ?? repo.branches.get(repo.defaultBranch);
    const tree = new Map(parent === undefined ? [] : repo.commits.get(parent)?.tree);
    for (const [path, content] of Object.entries(files)) {
      const clean = path.replace(/^\/+/, '');
      if (content === null) tree.delete(clean);
      else tree.set(clean, content);
    }
    const sha =
      givenSha ??
      createHash('sha1')
        .update(`${repo.id}\0${branch}\0${parent ?? ''}\0${message}\0${++this.#commits}`)
        .update(JSON.stringify([...tree]))
        .digest('hex');
    const branchBefore = repo.branches.get(branch);
    repo.commits.set(sha, {
      sha,
      parent,
      branchBefore,
      message,
      author,
      timestamp: new Date().toISOString(),
      tree,
    });
    repo.branches.set(branch, sha);
    return sha;
  }

  /** A branch, tag, `refs/pull/N/head` or full commit sha, resolved to its commit. */
  resolve(repo: Repo, ref: string): Commit | undefined {
    const pull = /^refs\/pull\/(\d+)\/head$/.exec(ref)?.[1];
    if (pull !== undefined) return repo.commits.get(repo.pulls.get(Number(pull)) ?? '');
    const name = ref.replace(/^refs\/(heads|tags)\//, '');
    const sha = repo.branches.get(name) ?? repo.tags.get(name) ?? ref;
    return repo.commits.get(sha);
  }

  /**
   * Opens a pull request from `head` (a branch of `from`, the base repository or a fork) into `base`.
   * GitHub makes the head commits reachable in the base repository; the double copies them there.
   */
  openPull(repo: Repo, from: Repo, head: string): { number: number; commit: Commit } {
    const sha = from.branches.get(head);
    if (sha === undefined) throw new Error(`forge double: no branch ${head} in ${from.owner}/${from.name}`);
    for (let at: string | undefined = sha; at !== undefined && !repo.commits.has(at);) {
      const c: Commit | undefined = from.commits.get(at);
      if (c === undefined) break;
      repo.commits.set(at, c);
      at = c.parent;
    }
    const number = repo.pulls.size + 1;
    repo.pulls.set(number, sha);
    const commit = repo.commits.get(sha);
    if (commit === undefined) throw new Error('forge double: pull request head lost');
    return { number, commit };
  }
}
