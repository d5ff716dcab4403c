import { describe, expect, it } from 'vitest';
import { droneSeal } from '../../../../test/support/drone-database.js';
import { DroneFieldCipher, parseDroneSecret } from './cipher.js';

const KEY = '0123456789abcdef0123456789abcdef';

describe('Drone’s column encryption', () => {
  const cipher = new DroneFieldCipher(parseDroneSecret(KEY) as Buffer);

  it('opens what Drone sealed with the key (nonce, ciphertext, tag), empty values too', () => {
    expect(cipher.open(droneSeal(KEY, 'hunter2 ✓'))).toEqual({ kind: 'decrypted', value: 'hunter2 ✓' });
    expect(cipher.open(droneSeal(KEY, ''))).toEqual({ kind: 'decrypted', value: '' });
  });

  it('takes text Drone wrote before it had a key as it is, and nothing else', () => {
    expect(cipher.open(Buffer.from('plain value of forty or more characters, no less'))).toEqual({
      kind: 'plain',
      value: 'plain value of forty or more characters, no less',
    });
    expect(cipher.open(Buffer.alloc(0))).toEqual({ kind: 'plain', value: '' });
    expect(cipher.open(droneSeal('f'.repeat(32), 'sealed with another key'))).toEqual({ kind: 'sealed' });
    const altered = droneSeal(KEY, 'altered');
    altered[14] = (altered[14] ?? 0) ^ 1;
    expect(cipher.open(altered)).toEqual({ kind: 'sealed' });
  });

  it('without a key, reads plain text and knows sealed values for what they are', () => {
    const none = new DroneFieldCipher(undefined);
    expect(none.hasKey).toBe(false);
    expect(none.open(Buffer.from('multi\nline\tvalue'))).toEqual({
      kind: 'plain',
      value: 'multi\nline\tvalue',
    });
    expect(none.open(droneSeal(KEY, 'secret'))).toEqual({ kind: 'sealed' });
  });

  it('takes Drone’s key as 32 characters, as Drone does', () => {
    expect(parseDroneSecret(KEY)).toEqual(Buffer.from(KEY));
    expect(parseDroneSecret('0123')).toBe(
      'expected the 32 characters of Drone’s DRONE_DATABASE_SECRET, got 4 bytes',
    );
    expect(typeof parseDroneSecret('0'.repeat(64))).toBe('string');
  });
});
