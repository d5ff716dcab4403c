import { timingSafeEqual } from 'node:crypto';
import type { AesGcmCipher } from './cipher.js';

/** The fixed plain text whose encryption, stored in the meta table, identifies the key. */
const MARKER = Buffer.from('svc secret key check v1', 'utf8');

/** A key check value: the marker encrypted with the key (random nonce, so it reveals nothing). */
export function makeKeyCheck(cipher: AesGcmCipher): string {
  return cipher.seal(MARKER.toString('utf8'));
}

/** True when the key check value was made with the cipher's key; compares in constant time. */
export function keyMatches(cipher: AesGcmCipher, check: string): boolean {
  let opened: Buffer;
  try {
    opened = Buffer.from(cipher.open(check), 'utf8');
  } catch {
    // GCM authentication failed: another key.
    return false;
  }
  return opened.length === MARKER.length && timingSafeEqual(opened, MARKER);
}
