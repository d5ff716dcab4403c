import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** GCM's standard nonce and tag sizes, which Go's `cipher.NewGCM` (Drone) uses too. */
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Why a value cannot be decrypted; the message never contains the value or the key. */
export class DecryptError extends Error {}

/**
 * Encrypts a value for a `kind: secret` document's inline `data`, in Drone's format so that files
 * encrypted by Drone keep working after a migration: AES-GCM with the repository's key (its bytes
 * as written, 32 of them: AES-256), base64 of nonce ‖ ciphertext ‖ tag. A fresh random nonce per
 * value: encrypting the same value twice gives different texts.
 */
export function encryptSecret(plaintext: string, key: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv(cipherName(key), keyBytes(key), nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return Buffer.concat([nonce, sealed]).toString('base64');
}

/**
 * The value `encryptSecret` encrypted with the same key. GCM authenticates the text: a value
 * encrypted for another repository, or altered in any byte, throws DecryptError.
 */
export function decryptSecret(encoded: string, key: string): string {
  const compact = encoded.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) throw new DecryptError('it is not base64');
  const sealed = Buffer.from(compact, 'base64');
  if (sealed.length < NONCE_BYTES + TAG_BYTES)
    throw new DecryptError('it is too short to be an encrypted value');
  if (key === '') throw new DecryptError('the repository has no key yet, so nothing was encrypted for it');
  if (!usableKey(key)) throw new DecryptError('the repository’s key is not an AES key');
  const decipher = createDecipheriv(cipherName(key), keyBytes(key), sealed.subarray(0, NONCE_BYTES));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    const plain = Buffer.concat([
      decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]);
    return plain.toString('utf8');
  } catch {
    throw new DecryptError(
      'it was not encrypted with this repository’s key (encrypted for another repository, or altered)',
    );
  }
}

/** AES takes 16, 24 or 32 key bytes; svc makes 32 (repo-key.ts), Drone's repository secrets are 32. */
export function usableKey(key: string): boolean {
  return [16, 24, 32].includes(keyBytes(key).length);
}

function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

function cipherName(key: string): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' {
  const bits = keyBytes(key).length * 8;
  if (bits !== 128 && bits !== 192 && bits !== 256)
    throw new Error('a repository key must be 16, 24 or 32 bytes');
  return `aes-${bits}-gcm`;
}
