/**
 * A runner's own credential (an svc addition): made by an administrator for one runner name,
 * presented by that runner instead of the shared SVC_RPC_SECRET. Only the token's hash is kept.
 */
export interface RunnerToken {
  readonly id: number;
  /** The runner's name: every stage it takes is held under this name, whatever it says it is. */
  readonly name: string;
  /**
   * Labels the runner is known by when it asks for stages, in place of the labels it sends, so that
   * a runner cannot offer itself for pipelines meant for others (`node: {deploy: prod}`); empty:
   * the runner's own labels count.
   */
  readonly labels: Readonly<Record<string, string>>;
  /** Epoch milliseconds. */
  readonly created: number;
  /** Epoch milliseconds of the last request made with it; 0 when never. */
  readonly lastUsed: number;
  /** Epoch milliseconds of its revocation; 0 while it is valid. */
  readonly revoked: number;
}

/**
 * Persistence of runner tokens.
 * - `create` throws ConflictError when a token of that name exists (revoked or not: a name is
 *   never given to a second token, so that stages held under it stay the first one's).
 * - `findHash` returns the token with that SHA-256 hash (hex), revoked or not.
 * - `revoke` marks the named token revoked at `now`; false when there is none or it already was.
 * - `touch` records a use (written at most once a minute by its callers).
 */
export interface RunnerTokenStore {
  create(token: {
    name: string;
    hash: string;
    labels: Readonly<Record<string, string>>;
  }): Promise<RunnerToken>;
  findHash(hash: string): Promise<RunnerToken | undefined>;
  findName(name: string): Promise<RunnerToken | undefined>;
  list(): Promise<RunnerToken[]>;
  revoke(name: string, now: number): Promise<boolean>;
  touch(id: number, now: number): Promise<void>;
}
