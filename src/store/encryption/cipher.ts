import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** How secret values are written to and read from the secrets table. */
export interface SecretCipher {
  /** True when values are encrypted at rest. */
  readonly encrypted: boolean;
  /** The stored form of a plain value. */
  seal(plain: string): string;
  /** The plain value of a stored form; throws when it cannot be decrypted. */
  open(stored: string): string;
}

/** Values stored as they are (no SVC_DATABASE_SECRET). */
export const plainTextCipher: SecretCipher = {
  encrypted: false,
  seal: (plain) => plain,
  open: (stored) => stored,
};

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * AES-256-GCM with a random 96-bit nonce per value, stored as base64 of nonce + ciphertext + tag.
 * GCM authenticates: a value decrypted with another key fails instead of yielding garbage.
 */
export class AesGcmCipher implements SecretCipher {
  readonly encrypted = true;
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new RangeError(`AES-256 needs a 32-byte key, got ${key.length} bytes`);
    this.#key = key;
  }

  seal(plain: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
  }

  open(stored: string): string {
    const bytes = Buffer.from(stored, 'base64');
    if (bytes.length < NONCE_BYTES + TAG_BYTES)
      throw new Error('the stored value is too short to be encrypted');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    const body = bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}
