import type { Perm } from './perm.js';

export type Visibility = 'public' | 'private' | 'internal';

/**
 * Which new builds wait for approval (status `blocked`) until someone with write access approves
 * them: none, pull requests from forks (the default), every pull request, or every build.
 */
export const APPROVAL_POLICIES = ['none', 'forks', 'pull_requests', 'all'] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];

/** A repository at the git provider, identified as `<namespace>/<name>`. */
export interface Repo {
  readonly id: number;
  /** The provider's own id of the repository; unique, survives renames. */
  uid: string;
  /** The user whose credentials svc uses for this repository (who enabled it); 0 when none. */
  userId: number;
  namespace: string;
  /**
   * The provider's id of the namespace (ScmRepo.namespaceUid); organization secrets are given only
   * to repositories of the namespace they were bound to. Empty until known.
   */
  namespaceUid: string;
  name: string;
  /** `<namespace>/<name>`; unique. */
  slug: string;
  /** Which git provider (scma … scmf). */
  scm: string;
  cloneUrl: string;
  cloneUrlSsh: string;
  link: string;
  defaultBranch: string;
  private: boolean;
  visibility: Visibility;
  /** Enabled: svc receives its webhooks and builds it. */
  active: boolean;
  /** Path of the pipeline file; empty means the default (`.svc.yml`, else `.drone.yml`). */
  configPath: string;
  /** Trusted repositories may use privileged containers, host volumes, devices and host networking. */
  trusted: boolean;
  /** Builds of a protected repository wait for approval. */
  protected: boolean;
  ignoreForks: boolean;
  ignorePullRequests: boolean;
  /** A new pull request build cancels the pending and running builds of the same pull request. */
  cancelPulls: boolean;
  /** A new push build cancels the pending builds of the same branch. */
  cancelPush: boolean;
  /** With cancelPush or cancelPulls: running builds are cancelled too, not only pending ones. */
  cancelRunning: boolean;
  /**
   * Builds of forks' pull requests get the OpenID Connect tokens their steps ask for (`id_tokens:`);
   * off (the default), they get none: a fork's code could present them wherever this repository's
   * tokens are trusted.
   */
  forkIdTokens: boolean;
  /** Builds of the repository that may run at once; 0 = no limit. */
  throttle: number;
  approval: ApprovalPolicy;
  /**
   * The repository's own key for signing and encrypting pipeline files (Drone's repository
   * secret); empty until first used. Never returned by the API.
   */
  signingKey: string;
  /** Build timeout in minutes. */
  timeout: number;
  /** The last build number handed out. */
  counter: number;
  /** Secret of the provider webhook for this repository; verifies every incoming hook. */
  hookSecret: string;
  /** Epoch milliseconds of the last sync from the provider; 0 when never. */
  synced: number;
  created: number;
  updated: number;
  version: number;
}

export type NewRepo = Omit<Repo, 'id' | 'created' | 'updated' | 'version' | 'counter'>;

/** A repository with one user's permissions on it. */
export interface RepoWithPerm {
  readonly repo: Repo;
  readonly perm: Perm;
}

/**
 * Persistence of repositories.
 * - `create` throws ConflictError when the uid or slug is taken.
 * - `update` is optimistic-locked: it throws StaleVersionError when `repo.version` is not the
 *   stored version, and returns the repository with its new version.
 * - `listUser` lists the repositories the user has any permission on, by slug, each with that
 *   permission (one read: the list of a user with a thousand repositories is a busy API route).
 * - `setCounter(id, counter)` sets the last build number handed out (Drone's `counter` patch),
 *   never below the number of an existing build of the repository: false then, and nothing
 *   changes. It does not change the version (the counter is not part of optimistic locking).
 */
export interface RepoStore {
  find(id: number): Promise<Repo | undefined>;
  findUid(uid: string): Promise<Repo | undefined>;
  findSlug(namespace: string, name: string): Promise<Repo | undefined>;
  /**
   * The provider's id of the namespace, as its most recently synchronized repository that names
   * one says; empty when no repository of the namespace has one.
   */
  findNamespaceUid(namespace: string): Promise<string>;
  list(): Promise<Repo[]>;
  listUser(userId: number): Promise<RepoWithPerm[]>;
  listActive(): Promise<Repo[]>;
  count(): Promise<number>;
  create(repo: NewRepo): Promise<Repo>;
  update(repo: Repo): Promise<Repo>;
  setCounter(id: number, counter: number): Promise<boolean>;
  delete(id: number): Promise<void>;
}
