/** Where a secret is visible: one repository, every repository of a namespace, or every repository. */
export type SecretScope =
  { kind: 'repo'; repoId: number } | { kind: 'namespace'; namespace: string } | { kind: 'global' };

/** A named secret value handed to pipelines through `from_secret`. */
export interface Secret {
  readonly id: number;
  scope: SecretScope;
  /** Unique within its scope. */
  name: string;
  /** The plain value. Encrypted at rest when SVC_DATABASE_SECRET is set; never returned by the API. */
  data: string;
  /**
   * Drone's "allow pull requests" (`pull_request`): builds of pull requests get the secret. Off by
   * default; pull requests from forks never get secrets, whatever the flags say.
   */
  pullRequest: boolean;
  /**
   * Drone's "allow push on pull requests" (`pull_request_push`, the drone CLI's "pull request write").
   * Kept and shown for clients; as in Drone, it does not expose a secret to pull requests by itself.
   */
  pullRequestPush: boolean;
  /**
   * An organization secret's namespace, by the provider's id (Repo.namespaceUid): a namespace
   * deleted and registered again under its name by someone else does not inherit its secrets.
   * Empty for other scopes, and for a secret not yet bound: the first build that uses it binds it.
   */
  namespaceUid: string;
  /**
   * A deployment environment: only stages that deploy there, once approved, receive the secret
   * (issue 35). Empty: every build the other rules allow.
   */
  environment: string;
  created: number;
  updated: number;
}

export type NewSecret = Omit<Secret, 'id' | 'created' | 'updated'>;

/**
 * Persistence of secrets. Values go in and come out in plain text; the store encrypts them at rest.
 * - `create` throws ConflictError when the scope already holds a secret of that name.
 * - `list` returns the secrets of exactly the given scope, by name.
 * - `listAll` returns every secret of one kind of scope (e.g. every namespace's), by scope then name.
 */
export interface SecretStore {
  find(id: number): Promise<Secret | undefined>;
  findName(scope: SecretScope, name: string): Promise<Secret | undefined>;
  list(scope: SecretScope): Promise<Secret[]>;
  listAll(kind: SecretScope['kind']): Promise<Secret[]>;
  create(secret: NewSecret): Promise<Secret>;
  update(secret: Secret): Promise<Secret>;
  delete(id: number): Promise<void>;
  /**
   * Binds an organization secret that has no namespace id yet to `namespaceUid`, in one
   * conditional write: true when this call bound it, false when it was bound already (perhaps by
   * another server a moment before) or the uid is empty.
   */
  bindNamespace(id: number, namespaceUid: string): Promise<boolean>;
}
