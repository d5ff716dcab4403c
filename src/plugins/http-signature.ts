import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HTTP signatures as Drone's plugin and webhook receivers verify them (draft-cavage-http-signatures):
 * a `Digest: SHA-256=<base64>` of the body, and a `Signature` over the `date` and `digest` headers
 * with HMAC-SHA256 of the shared secret, key id `hmac-key`. Existing receivers (drone-go's plugin
 * handlers, webhook extensions) accept svc's requests unchanged.
 */

/** The headers a signed request carries, named as sent. */
export interface SignedHeaders {
  Date: string;
  Digest: string;
  Signature: string;
}

const KEY_ID = 'hmac-key';
const ALGORITHM = 'hmac-sha256';
const SIGNED = ['date', 'digest'] as const;

/** The digest header value of a body. */
export function bodyDigest(body: Buffer | string): string {
  return `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
}

/** The signature of the signed headers' values under `secret` (base64). */
function signatureOf(values: { date: string; digest: string }, secret: string): string {
  const signingString = SIGNED.map((name) => `${name}: ${values[name]}`).join('\n');
  return createHmac('sha256', secret).update(signingString).digest('base64');
}

/** Signs a request body: the headers to send along with it. */
export function signBody(body: Buffer | string, secret: string, now: Date): SignedHeaders {
  const date = now.toUTCString();
  const digest = bodyDigest(body);
  const signature = signatureOf({ date, digest }, secret);
  return {
    Date: date,
    Digest: digest,
    Signature: `keyId="${KEY_ID}",algorithm="${ALGORITHM}",signature="${signature}",headers="${SIGNED.join(' ')}"`,
  };
}

/** The signing headers of a body, named in lower case as node:http sends them; none without a secret. */
export function signatureHeaders(
  body: string,
  secret: string | undefined,
  now: Date,
): Record<string, string> {
  if (secret === undefined) return {};
  const { Date: date, Digest: digest, Signature: signature } = signBody(body, secret, now);
  return { date, digest, signature };
}

/** Why a signed request was refused, or undefined when it verifies. */
export type SignatureProblem =
  | 'missing signature'
  | 'malformed signature'
  | 'unsupported algorithm'
  | 'digest does not match the body'
  | 'date too far from now'
  | 'signature does not match';

/**
 * Verifies a request signed by `signBody` (or by any draft-cavage signer of `date` and `digest`
 * with HMAC-SHA256): the digest must match the body, the date be within `maxSkewMs` of `now` (a
 * replayed request goes stale), and the signature match in constant time.
 */
export function verifyBody(
  headers: Readonly<Record<string, string | undefined>>,
  body: Buffer | string,
  secret: string,
  now: Date,
  maxSkewMs = 5 * 60_000,
): SignatureProblem | undefined {
  const header = headers.signature;
  const date = headers.date;
  const digest = headers.digest;
  if (header === undefined || date === undefined || digest === undefined) return 'missing signature';
  const params = parseSignature(header);
  if (params === undefined || params.signature === undefined) return 'malformed signature';
  if ((params.algorithm ?? ALGORITHM).toLowerCase() !== ALGORITHM) return 'unsupported algorithm';
  if ((params.headers ?? 'date').toLowerCase() !== SIGNED.join(' ')) return 'malformed signature';
  if (!sameText(digest, bodyDigest(body))) return 'digest does not match the body';
  const sent = Date.parse(date);
  if (!Number.isFinite(sent) || Math.abs(now.getTime() - sent) > maxSkewMs) return 'date too far from now';
  return sameText(params.signature, signatureOf({ date, digest }, secret))
    ? undefined
    : 'signature does not match';
}

/** `keyId="…",algorithm="…",…` as a map; undefined when it is not of that form. */
function parseSignature(header: string): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  const pattern = /\s*([a-zA-Z]+)="([^"]*)"\s*(,|$)/y;
  let at = 0;
  while (at < header.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(header);
    if (match === null) return undefined;
    params[match[1] ?? ''] = match[2] ?? '';
    at = pattern.lastIndex;
  }
  return params;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
