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
}
