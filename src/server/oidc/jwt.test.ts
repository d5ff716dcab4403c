import { createPrivateKey } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { generateKeyMaterial, signJwt } from './jwt.js';

describe('signing with node:crypto, verified by jose', () => {
  it('makes RS256 tokens that a standard library verifies with the public JWK, named by its RFC 7638 kid', async () => {
    const material = await generateKeyMaterial();
    expect(material.kid).toBe(await calculateJwkThumbprint({ ...material.publicJwk }, 'sha256'));
    expect(Object.keys(material.publicJwk).sort()).toEqual(['e', 'kty', 'n']);
    const token = signJwt(
      { iss: 'https://ci.example.com', aud: 'x', sub: 's', exp: Math.floor(Date.now() / 1000) + 60 },
      material.kid,
      createPrivateKey(material.privateKey),
    );
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'RS256', typ: 'JWT', kid: material.kid });
    const keys = createLocalJWKSet({ keys: [{ ...material.publicJwk, kid: material.kid, alg: 'RS256' }] });
    const { payload } = await jwtVerify(token, keys, { issuer: 'https://ci.example.com', audience: 'x' });
    expect(payload.sub).toBe('s');

    const other = await generateKeyMaterial();
    const forged = signJwt({ sub: 's' }, material.kid, createPrivateKey(other.privateKey));
    await expect(jwtVerify(forged, keys)).rejects.toMatchObject({
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
  });
});
