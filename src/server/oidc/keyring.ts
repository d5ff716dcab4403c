import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { PublishedKey, SigningKey, SigningKeyStore } from '../../core/oidc.js';
import { ALGORITHM, generateKeyMaterial, type KeyMaterial } from './jwt.js';

/**
 * Verifiers accept tokens a little past `exp` (clock skew; AWS and jose allow minutes): a key stays
 * published this much longer than the last token it signed can live.
 */
export const CLOCK_LEEWAY = 5 * 60_000;

/** What the keyring needs. */
export interface KeyringOptions {
  readonly keys: SigningKeyStore;
  /** SVC_OIDC_KEY_ROTATION: how long one key signs, in milliseconds. */
  readonly rotation: number;
  /** SVC_OIDC_TOKEN_LIFETIME: the longest a token lives, in milliseconds. */
  readonly maxLifetime: number;
  /** Epoch milliseconds; tests pass a fake clock. */
  readonly now?: (() => number) | undefined;
  /** Makes key pairs; tests may pass a faster one. */
  readonly generate?: (() => Promise<KeyMaterial>) | undefined;
}

/** The key that signs now, ready to sign. */
export interface ActiveKey {
  readonly key: PublishedKey;
  readonly privateKey: KeyObject;
}

/**
 * The server's signing keys, shared with every server of the database through SigningKeyStore.
 * Time is cut into periods of `rotation`, counted from the epoch, so that every server computes the
 * same period; each period's key is made once, by whichever server needs it first (the store keeps
 * the first). When a period's key is first used, the NEXT period's key is made too: it is published
 * a whole period before it signs, so that verifiers that cache the JWKS know it in time. A key is
 * published until every token it signed has expired, and deleted at the next rotation after that.
 */
export class OidcKeyring {
  readonly #options: KeyringOptions;
  readonly #now: () => number;
  #active: ActiveKey | undefined;
  /** The slot being made ready, so that concurrent requests of one server make one key. */
  #pending: { slot: string; ready: Promise<ActiveKey> } | undefined;

  constructor(options: KeyringOptions) {
    if (options.rotation <= 0) throw new RangeError('the key rotation period must be positive');
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The key of the current period; made (with the next period's) when it does not exist yet. */
  async active(): Promise<ActiveKey> {
    const slot = this.#slotAt(this.#now());
    if (this.#active?.key.slot === slot.name) return this.#active;
    if (this.#pending?.slot !== slot.name) {
      const ready = this.#prepare(slot).finally(() => {
        if (this.#pending?.ready === ready) this.#pending = undefined;
      });
      this.#pending = { slot: slot.name, ready };
    }
    return this.#pending.ready;
  }

  /** The keys verifiers must know now: the current and next periods', and older ones still valid. */
  async published(): Promise<PublishedKey[]> {
    await this.active();
    return this.#options.keys.listPublished(this.#now());
  }

  async #prepare(slot: Slot): Promise<ActiveKey> {
    const current = await this.#keyOf(slot);
    await this.#keyOf(this.#slotAt(slot.until));
    await this.#options.keys.deleteExpired(this.#now());
    const active = { key: current, privateKey: createPrivateKey(current.privateKey) };
    this.#active = active;
    return active;
  }

  async #keyOf(slot: Slot): Promise<SigningKey> {
    const found = await this.#options.keys.findSlot(slot.name);
    if (found !== undefined) return found;
    const material = await (this.#options.generate ?? generateKeyMaterial)();
    return this.#options.keys.create({
      ...material,
      slot: slot.name,
      algorithm: ALGORITHM,
      signsFrom: slot.from,
      signsUntil: slot.until,
      expires: slot.until + this.#options.maxLifetime + CLOCK_LEEWAY,
      created: this.#now(),
    });
  }

  #slotAt(time: number): Slot {
    const { rotation } = this.#options;
    const index = Math.floor(time / rotation);
    return { name: `${rotation}:${index}`, from: index * rotation, until: (index + 1) * rotation };
  }
}

/** One rotation period: its name in the store, and when it starts and ends (epoch milliseconds). */
interface Slot {
  readonly name: string;
  readonly from: number;
  readonly until: number;
}
