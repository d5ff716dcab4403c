import { describe, expect, it } from 'vitest';
import { FailedAuthLimit } from './auth.js';

describe('failed runner authentications per address', () => {
  it('blocks an address for the rest of its minute past the limit, and only that address', () => {
    let now = 1_000_000;
    const limit = new FailedAuthLimit({ perMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) {
      expect(limit.blockedFor('10.0.0.1')).toBe(0);
      limit.failed('10.0.0.1');
    }
    now += 20_000;
    expect(limit.blockedFor('10.0.0.1')).toBe(40_000);
    expect(limit.blockedFor('10.0.0.2')).toBe(0);
    now += 40_000;
    expect(limit.blockedFor('10.0.0.1')).toBe(0);
  });

  it('keeps its memory bounded whatever the number of addresses', () => {
    const limit = new FailedAuthLimit({ perMinute: 1, now: () => 0 });
    for (let i = 0; i < 20_000; i++)
      limit.failed(`10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`);
    // The newest addresses are still counted: the oldest made room for them.
    expect(limit.blockedFor('10.0.78.31')).toBeGreaterThan(0);
  });
});
