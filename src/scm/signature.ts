import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * True when `hex` is the HMAC-SHA256 of the exact body bytes under `secret`. Compares in constant
 * time so that a caller cannot learn the expected signature byte by byte from response times.
 */
export function hmacSha256Matches(body: Buffer, secret: string, hex: string): boolean {
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}
