import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The row a stored value belongs to. Its ciphertext is bound to it (AES-GCM associated data), so
 * that a value copied into another row, or another column, fails to decrypt instead of being used
 * there: repository A's hook secret moved into repository B's row does not verify B's hooks.
 */
export interface RowBinding {
  readonly table: string;
  readonly column: string;
  readonly id: number;
}

/** How credentials are written to and read from their columns (see encrypted-columns.ts). */
export interface SecretCipher {
  /** True when values are encrypted at rest. */
  readonly encrypted: boolean;
  /** The stored form of a plain value in the row `at`. */
  seal(plain: string, at: RowBinding): string;
  /** The plain value of a stored form in the row `at`; throws when it cannot be decrypted there. */
  open(stored: string, at: RowBinding): string;
}

/** Values stored as they are (no SVC_DATABASE_SECRET). */
export const plainTextCipher: SecretCipher = {
  encrypted: false,
  seal: (plain) => plain,
  open: (stored) => stored,
};

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The associated data of a row: table, column and id, in a form no two rows share. */
function associatedData(at: RowBinding): Buffer {
  return Buffer.from(`svc:${at.table}.${at.column}:${at.id}`, 'utf8');
}

/**
 * AES-256-GCM with a random 96-bit nonce per value, stored as base64 of nonce + ciphertext + tag.
 * GCM authenticates: a value decrypted with another key, or for another row, fails instead of
 * yielding garbage or another row's value. Without `at` the value is bound to nothing: only the key
 * check value and the secret values of databases written before values were bound (scheme
 * "aes-256-gcm") are, and those are rewritten bound at the next start.
 */
export class AesGcmCipher implements SecretCipher {
  readonly encrypted = true;
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new RangeError(`AES-256 needs a 32-byte key, got ${key.length} bytes`);
    this.#key = key;
  }

  seal(plain: string, at?: RowBinding): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    if (at !== undefined) cipher.setAAD(associatedData(at));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
  }

  open(stored: string, at?: RowBinding): string {
    const bytes = Buffer.from(stored, 'base64');
    if (bytes.length < NONCE_BYTES + TAG_BYTES)
      throw new Error('the stored value is too short to be encrypted');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, NONCE_BYTES));
    if (at !== undefined) decipher.setAAD(associatedData(at));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
