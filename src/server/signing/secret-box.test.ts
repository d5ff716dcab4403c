import { createCipheriv } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, DecryptError, encryptSecret } from './secret-box.js';

const KEY = 'k'.repeat(32);
const OTHER = 'o'.repeat(32);

describe('secret box', () => {
  it('decrypts what it encrypted, with a fresh nonce each time', () => {
    const value = 'pässword with "quotes"\nand a second line';
    const [a, b] = [encryptSecret(value, KEY), encryptSecret(value, KEY)];
    expect(a).not.toBe(b);
    expect(a).not.toContain('password');
    expect(decryptSecret(a, KEY)).toBe(value);
    expect(decryptSecret(b, KEY)).toBe(value);
  });

  it('reads Drone’s layout: base64 of nonce, ciphertext and tag of AES-256-GCM with the key’s bytes', () => {
    const nonce = Buffer.alloc(12, 7);
    const cipher = createCipheriv('aes-256-gcm', Buffer.from(KEY), nonce);
    const sealed = Buffer.concat([cipher.update('hunter2'), cipher.final(), cipher.getAuthTag()]);
    expect(decryptSecret(Buffer.concat([nonce, sealed]).toString('base64'), KEY)).toBe('hunter2');
  });

  it('accepts the value folded over several lines, as YAML block scalars leave it', () => {
    const encrypted = encryptSecret('folded', KEY);
    expect(decryptSecret(`${encrypted.slice(0, 10)}\n  ${encrypted.slice(10)}\n`, KEY)).toBe('folded');
  });

  it('refuses another repository’s value, an altered one, garbage and a repository without a key', () => {
    const encrypted = encryptSecret('secret', KEY);
    expect(() => decryptSecret(encrypted, OTHER)).toThrow(/not encrypted with this repository’s key/);
    const bytes = Buffer.from(encrypted, 'base64');
    bytes[14] = (bytes[14] ?? 0) ^ 1;
    expect(() => decryptSecret(bytes.toString('base64'), KEY)).toThrow(DecryptError);
    expect(() => decryptSecret('not base64 at all!', KEY)).toThrow(/not base64/);
    expect(() => decryptSecret('c2hvcnQ=', KEY)).toThrow(/too short/);
    expect(() => decryptSecret(encrypted, '')).toThrow(/no key yet/);
    expect(() => decryptSecret(encrypted, 'short')).toThrow(DecryptError);
  });
});
