import { createHash, generateKeyPair, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

/** The one algorithm svc signs with: what GitHub Actions and GitLab use, and every cloud's federation accepts. */
export const ALGORITHM = 'RS256';

const generate = promisify(generateKeyPair);

/** A new key pair: the private half as PKCS #8 PEM, the public half as a JWK, and its kid. */
export interface KeyMaterial {
  readonly kid: string;
  readonly privateKey: string;
  readonly publicJwk: Record<string, string>;
}

/** Makes an RSA key of 2048 bits (off the event loop: it takes tens of milliseconds). */
export async function generateKeyMaterial(): Promise<KeyMaterial> {
  const { privateKey, publicKey } = await generate('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'RSA' || jwk.n === undefined || jwk.e === undefined)
    throw new Error('node:crypto made an RSA key without n or e');
  const publicJwk = { kty: jwk.kty, n: jwk.n, e: jwk.e };
  return {
    kid: thumbprint(publicJwk),
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicJwk,
  };
}

/** The RFC 7638 thumbprint of an RSA JWK: base64url SHA-256 of its required members, in order. */
export function thumbprint(jwk: { e: string; kty: string; n: string }): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A compact JWS of `claims`, signed RS256 by `privateKey`, naming `kid` in its header. */
export function signJwt(
  claims: Readonly<Record<string, unknown>>,
  kid: string,
  privateKey: KeyObject,
): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const input = `${encode({ alg: ALGORITHM, typ: 'JWT', kid })}.${encode(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input, 'ascii'), privateKey).toString('base64url')}`;
}
