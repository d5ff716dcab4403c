import { createDecipheriv } from 'node:crypto';

/** AES-GCM as Drone seals a column: a 12-byte nonce, then the ciphertext, then the 16-byte tag. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A stored value read back: in plain text, decrypted with the key, or sealed (it does not decrypt). */
export type Opened =
  { readonly kind: 'plain' | 'decrypted'; readonly value: string } | { readonly kind: 'sealed' };

/**
 * Drone's DRONE_DATABASE_SECRET: exactly 32 bytes, the characters themselves being the AES-256 key
 * (Drone refuses any other length). Returns the key, or a message saying what is expected.
 */
export function parseDroneSecret(value: string): Buffer | string {
  const key = Buffer.from(value, 'utf8');
  if (key.length === 32) return key;
  return `expected the 32 characters of Drone’s DRONE_DATABASE_SECRET, got ${key.length} bytes`;
}

/**
 * Reads the columns Drone encrypts with DRONE_DATABASE_SECRET (secrets' and organization secrets'
 * values, and users' provider tokens when DRONE_DATABASE_ENCRYPT_USER_TABLE was set). Without a
 * key Drone stores them as they are. With one, a value that does not decrypt may still be plain
 * text written before the key was set (Drone's DRONE_DATABASE_ENCRYPT_MIXED_CONTENT, and users'
 * tokens without DRONE_DATABASE_ENCRYPT_USER_TABLE): text is taken as it is, while binary data
 * that does not decrypt is a value sealed with another key, or altered.
 */
export class DroneFieldCipher {
  readonly #key: Buffer | undefined;

  constructor(key: Buffer | undefined) {
    this.#key = key;
  }

  get hasKey(): boolean {
    return this.#key !== undefined;
  }

  open(stored: Buffer): Opened {
    const decrypted = this.#key === undefined ? undefined : decrypt(this.#key, stored);
    if (decrypted !== undefined) return { kind: 'decrypted', value: decrypted };
    const plain = plainText(stored);
    return plain === undefined ? { kind: 'sealed' } : { kind: 'plain', value: plain };
  }
}

function decrypt(key: Buffer, sealed: Buffer): string | undefined {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plain.toString('utf8');
  } catch {
    return undefined;
  }
}

/** C0 control characters other than tab, line feed and carriage return, and DEL. */
function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) || code === 0x7f) return true;
  }
  return false;
}

/**
 * The value as text when it reads as text: valid UTF-8 without control characters. A sealed value
 * is 28 or more random bytes, which read as such text once in ~10^12 tries.
 */
function plainText(stored: Buffer): string | undefined {
  let value: string;
  try {
    value = new TextDecoder('utf-8', { fatal: true }).decode(stored);
  } catch {
    return undefined;
  }
  return hasControl(value) ? undefined : value;
}
