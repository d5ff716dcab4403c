import { createHash, randomBytes } from 'node:crypto';

/**
 * The stored form of an API token: its SHA-256, hex. Tokens are random (128 bits, or the 32
 * characters an administrator chose for SVC_USER_CREATE), so a plain hash cannot be reversed, and
 * it needs no key: lookups work with or without SVC_DATABASE_SECRET.
 */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new API token (32 hexadecimal characters, as Drone's) and its hash, the only part svc keeps. */
export function newApiToken(): { token: string; hash: string } {
  const token = randomBytes(16).toString('hex');
  return { token, hash: hashApiToken(token) };
}
