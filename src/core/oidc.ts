/**
 * The keys with which the server signs the OpenID Connect tokens of jobs (`id_tokens:` of a step),
 * shared by every server of one database. Time is divided into rotation periods; each period has
 * exactly one key, its `slot`, which signs during the period and is published (JWKS) from its
 * creation — one period ahead — until `expires`, when no token it signed is valid any more.
 */
export interface PublishedKey {
  readonly id: number;
  /** The key's id in tokens' headers and the JWKS: its RFC 7638 thumbprint. */
  readonly kid: string;
  /** The JWS algorithm, `RS256`. */
  readonly algorithm: string;
  /** The public key as a JSON Web Key (`kty`, `n`, `e`). */
  readonly publicJwk: Readonly<Record<string, string>>;
  /** Which rotation period the key signs in, e.g. `604800000:2891`: the period's length and number. */
  readonly slot: string;
  /** Epoch milliseconds: the key signs tokens from `signsFrom` until before `signsUntil`. */
  readonly signsFrom: number;
  readonly signsUntil: number;
  /** Epoch milliseconds after which no token the key signed is valid: it is not published then. */
  readonly expires: number;
  readonly created: number;
}

/** A signing key with its private half (PKCS #8 PEM). */
export interface SigningKey extends PublishedKey {
  readonly privateKey: string;
}

export type NewSigningKey = Omit<SigningKey, 'id'>;

/**
 * Persistence of the signing keys; the private key is encrypted with SVC_DATABASE_SECRET when set,
 * bound to its row.
 * - `findSlot` returns the key of a rotation period, or undefined when it has none yet.
 * - `create` stores a new key and returns it; when another server stored a key for the same slot
 *   first, it stores nothing and returns THAT key, so that every server signs a period with the
 *   same key, whoever made it.
 * - `listPublished(now)` returns the keys whose `expires` is after `now`, without their private
 *   halves, newest `signsFrom` first.
 * - `deleteExpired(before)` deletes the keys whose `expires` is before `before`; returns how many.
 */
export interface SigningKeyStore {
  findSlot(slot: string): Promise<SigningKey | undefined>;
  create(key: NewSigningKey): Promise<SigningKey>;
  listPublished(now: number): Promise<PublishedKey[]>;
  deleteExpired(before: number): Promise<number>;
}
