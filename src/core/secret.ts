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
  /** Available to pull requests from the same repository. */
  pullRequest: boolean;
  /** Available to pull requests pushed from forks (untrusted code); off by default. */
  pullRequestPush: boolean;
  created: number;
  updated: number;
}

export type NewSecret = Omit<Secret, 'id' | 'created' | 'updated'>;

/**
 * Persistence of secrets. Values go in and come out in plain text; the store encrypts them at rest.
 * - `create` throws ConflictError when the scope already holds a secret of that name.
 * - `list` returns the secrets of exactly the given scope, by name.
 */
export interface SecretStore {
  find(id: number): Promise<Secret | undefined>;
  findName(scope: SecretScope, name: string): Promise<Secret | undefined>;
  list(scope: SecretScope): Promise<Secret[]>;
  create(secret: NewSecret): Promise<Secret>;
  update(secret: Secret): Promise<Secret>;
  delete(id: number): Promise<void>;
}
