import { createHmac } from 'node:crypto';

/** The hex HMAC of a delivery's body under the hook's secret; empty without a secret. */
export function hmacHex(algorithm: 'sha1' | 'sha256', secret: string, body: string): string {
  return secret === '' ? '' : createHmac(algorithm, secret).update(body).digest('hex');
}

/** POSTs one webhook delivery as a forge does; resolves to the receiver's HTTP status. */
export async function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  const response = await fetch(url, { method: 'POST', headers, body });
  await response.arrayBuffer();
  return response.status;
}
