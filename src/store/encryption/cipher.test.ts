import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesGcmCipher } from './cipher.js';
import { keyMatches, makeKeyCheck } from './key-check.js';

describe('AES-256-GCM secret cipher', () => {
  const cipher = new AesGcmCipher(randomBytes(32));

  it('round-trips values with a fresh nonce each time', () => {
    const a = cipher.seal('s3cret ✓');
    const b = cipher.seal('s3cret ✓');
    expect(a).not.toBe(b);
    expect(Buffer.from(a, 'base64')).toHaveLength(12 + Buffer.byteLength('s3cret ✓') + 16);
    expect(cipher.open(a)).toBe('s3cret ✓');
    expect(cipher.open(cipher.seal(''))).toBe('');
  });

  it('refuses a tampered value or one sealed with another key', () => {
    const sealed = Buffer.from(cipher.seal('value'), 'base64');
    sealed[13] = (sealed[13] ?? 0) ^ 1;
    expect(() => cipher.open(sealed.toString('base64'))).toThrow();
    expect(() => new AesGcmCipher(randomBytes(32)).open(cipher.seal('value'))).toThrow();
    expect(() => cipher.open('c2hvcnQ=')).toThrow('too short');
  });

  it('recognises its own key check value only', () => {
    const check = makeKeyCheck(cipher);
    expect(keyMatches(cipher, check)).toBe(true);
    expect(keyMatches(new AesGcmCipher(randomBytes(32)), check)).toBe(false);
    expect(keyMatches(cipher, cipher.seal('another marker'))).toBe(false);
    expect(keyMatches(cipher, '')).toBe(false);
  });

  it('needs a 32-byte key', () => {
    expect(() => new AesGcmCipher(randomBytes(16))).toThrow('AES-256 needs a 32-byte key, got 16 bytes');
  });
});
