/** A person logged in through the git provider, or a machine account (SVC_USER_CREATE, API). */
export interface User {
  readonly id: number;
  /** Account name at the git provider, or the machine account's name. Unique. */
  login: string;
  email: string;
  avatar: string;
  machine: boolean;
  admin: boolean;
  /** An inactive user cannot log in or use the API. */
  active: boolean;
  /**
   * SHA-256 (hex) of svc's own API token (bearer token); unique. The token itself is never stored:
   * it is shown once, when made (POST /api/user/token?rotate=true, POST /api/users).
   */
  tokenHash: string;
  /**
   * The git provider's OAuth credentials; empty for machine accounts. Never returned by the API;
   * encrypted at rest with SVC_DATABASE_SECRET.
   */
  scmToken: string;
  scmRefresh: string;
  /** Epoch milliseconds when `scmToken` expires; 0 when it does not. */
  scmExpiry: number;
  /**
   * The provider's immutable id of the person (logins can be renamed and then reused by someone
   * else). Empty for machine accounts, and for accounts that have not logged in since svc learned
   * ids. Unique among accounts that have one.
   */
  scmUid: string;
  /** Epoch milliseconds; 0 when never. */
  lastLogin: number;
  /**
   * Session cookies carry the generation they were issued in; logging out moves it on
   * (`endSessions`), which ends every session of the account on every server at once.
   */
  readonly sessionGen: number;
  created: number;
  updated: number;
}

export type NewUser = Omit<User, 'id' | 'created' | 'updated' | 'sessionGen'>;

/**
 * Persistence of users.
 * - `find*` return `undefined` when nothing matches.
 * - `create` throws ConflictError when the login, token hash or provider id is taken.
 * - `update` writes every field of the given user; throws NotFoundError when the id is gone.
 */
export interface UserStore {
  find(id: number): Promise<User | undefined>;
  findLogin(login: string): Promise<User | undefined>;
  /** The account of the provider's person `uid`; never matches the empty uid. */
  findScmUid(uid: string): Promise<User | undefined>;
  /** The user whose API token has this SHA-256 hash (hex). */
  findTokenHash(hash: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  count(): Promise<number>;
  create(user: NewUser): Promise<User>;
  update(user: User): Promise<User>;
  delete(id: number): Promise<void>;
  /**
   * Moves the account's session generation on, in one write that no other update undoes (`update`
   * never writes it): every session cookie issued before stops working.
   */
  endSessions(id: number): Promise<void>;
  /**
   * Stores refreshed provider credentials in place of `oldToken` (whichever users hold it; normally
   * one) and answers how many users had it. Each user's row is replaced by one conditional update
   * that still finds `oldToken` there, so that two refreshes racing on one token cannot store an
   * older pair over a newer one: the second finds the token gone and answers 0.
   */
  replaceScmToken(
    oldToken: string,
    fresh: { token: string; refresh: string; expiry: number },
  ): Promise<number>;
}
