import { createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  oauth1Authorization,
  parseOAuth1Authorization,
  percentEncode,
  signatureBaseString,
} from './oauth1.js';

describe('OAuth 1.0a signing (RFC 5849)', () => {
  it('encodes as §3.6 says: only unreserved characters stay', () => {
    expect(percentEncode("a b!'()*~-._/:+%")).toBe('a%20b%21%27%28%29%2A~-._%2F%3A%2B%25');
    expect(percentEncode('é')).toBe('%C3%A9');
  });

  it('builds the signature base string of the RFC’s own example (§3.4.1.1)', () => {
    const base = signatureBaseString(
      'post',
      'http://EXAMPLE.COM:80/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b',
      {
        realm: 'Example',
        oauth_consumer_key: '9djdj82h48djs9d2',
        oauth_token: 'kkk9d7dh3k39sjv7',
        oauth_signature_method: 'HMAC-SHA1',
        oauth_timestamp: '137131201',
        oauth_nonce: '7d8f3e4a',
        oauth_signature: 'bYT5CMsGcbgUdFHObYMEfcx6bsw=',
      },
      'c2&a3=2+q',
    );
    expect(base).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
  });

  it('signs with RSA-SHA1 so that the consumer’s public key verifies the header', () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const header = oauth1Authorization({
      method: 'POST',
      url: 'https://bitbucket.example.com:8443/plugins/servlet/oauth/access-token',
      consumerKey: 'svc',
      privateKey,
      token: 'request-token',
      extra: { oauth_verifier: 'v 1' },
      timestamp: 1_700_000_000,
      nonce: 'n1',
    });
    const params = parseOAuth1Authorization(header);
    expect(params).toMatchObject({
      oauth_consumer_key: 'svc',
      oauth_token: 'request-token',
      oauth_verifier: 'v 1',
      oauth_signature_method: 'RSA-SHA1',
      oauth_timestamp: '1700000000',
      oauth_nonce: 'n1',
      oauth_version: '1.0',
    });
    const base = signatureBaseString(
      'POST',
      'https://bitbucket.example.com:8443/plugins/servlet/oauth/access-token',
      params ?? {},
    );
    const verified = createVerify('RSA-SHA1')
      .update(base)
      .verify(publicKey, params?.oauth_signature ?? '', 'base64');
    expect(verified).toBe(true);
    // Another request (another path) does not verify with that signature.
    const other = signatureBaseString(
      'POST',
      'https://bitbucket.example.com:8443/plugins/servlet/oauth/request-token',
      params ?? {},
    );
    expect(
      createVerify('RSA-SHA1')
        .update(other)
        .verify(publicKey, params?.oauth_signature ?? '', 'base64'),
    ).toBe(false);
  });
});
