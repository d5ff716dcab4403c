import { createHash } from 'node:crypto';

/**
 * The keys a verified delivery is remembered by (HookDeliveryStore), both SHA-256 digests so that
 * they fit the store whatever the sender put in a header:
 * - `id:` the provider's delivery id (X-GitHub-Delivery, …), which the provider keeps when it
 *   retries or redelivers, so its own repeats are recognised;
 * - `body:` the verified body. No provider signs its delivery header, so whoever captured a delivery
 *   can send it again under a new id; the signed body they cannot change. The body key is also the
 *   fallback for a request that names no delivery. Two genuine deliveries with identical bytes are
 *   the same change of the same ref told twice (every payload names its commits, most a time too).
 */
export function deliveryKeys(delivery: string, body: Buffer): string[] {
  const keys = [`body:${sha256(body)}`];
  if (delivery !== '') keys.unshift(`id:${sha256(Buffer.from(delivery))}`);
  return keys;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
