import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256Matches } from './signature.js';

describe('hmacSha256Matches', () => {
  const body = Buffer.from('{"zen":"Keep it logically awesome."}');
  const hex = createHmac('sha256', 'secret').update(body).digest('hex');

  it('accepts the HMAC of the body under the secret, in either case', () => {
    expect(hmacSha256Matches(body, 'secret', hex)).toBe(true);
    expect(hmacSha256Matches(body, 'secret', hex.toUpperCase())).toBe(true);
  });

  it('refuses another secret, other bytes and malformed signatures', () => {
    expect(hmacSha256Matches(body, 'other', hex)).toBe(false);
    expect(hmacSha256Matches(Buffer.from(`${body.toString()} `), 'secret', hex)).toBe(false);
    expect(hmacSha256Matches(body, 'secret', hex.slice(2))).toBe(false);
    expect(hmacSha256Matches(body, 'secret', `${hex.slice(0, 62)}zz`)).toBe(false);
    expect(hmacSha256Matches(body, 'secret', '')).toBe(false);
  });
});
