import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bodyDigest, signBody, verifyBody } from './http-signature.js';

const lower = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

describe('HTTP signatures', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  const body = JSON.stringify({ event: 'build', action: 'created' });

  it('signs the date and digest headers as Drone receivers expect', () => {
    const signed = signBody(body, 'webhook-secret', now);
    expect(signed.Date).toBe('Sat, 21 Nov 2026 10:00:00 GMT');
    expect(signed.Digest).toBe(bodyDigest(body));
    const expected = createHmac('sha256', 'webhook-secret')
      .update(`date: ${signed.Date}\ndigest: ${signed.Digest}`)
      .digest('base64');
    expect(signed.Signature).toBe(
      `keyId="hmac-key",algorithm="hmac-sha256",signature="${expected}",headers="date digest"`,
    );
  });

  it('verifies a signature made by a Drone server (published example of a webhook delivery)', () => {
    // From a public webhook receiver's test fixtures: the headers Drone sent, signed with
    // "webhook-secret". Only the signature is checked here, so the digest is taken as given.
    const headers = {
      signature:
        'keyId="hmac-key",algorithm="hmac-sha256",signature="nMQOWQSyloFPh3ZB8Uoh/D9QyzCtnVf0tk/jemJm058=",headers="date digest"',
      date: 'Fri, 12 Nov 2021 23:33:47 GMT',
      digest: 'SHA-256=kCit1zUa+1aDpnZhDSBCa0iVYPTeF6k2jCjHwE2lnQY=',
    };
    const sentAt = new Date('2021-11-12T23:33:50Z');
    const problem = verifyBody(headers, 'not the body', 'webhook-secret', sentAt);
    expect(problem).toBe('digest does not match the body');
    const signingString = `date: ${headers.date}\ndigest: ${headers.digest}`;
    expect(createHmac('sha256', 'webhook-secret').update(signingString).digest('base64')).toBe(
      'nMQOWQSyloFPh3ZB8Uoh/D9QyzCtnVf0tk/jemJm058=',
    );
  });

  it('accepts what it signed, and refuses another secret, another body, a stale date or a broken header', () => {
    const headers = lower({ ...signBody(body, 's3cret', now) });
    expect(verifyBody(headers, body, 's3cret', now)).toBeUndefined();
    expect(
      verifyBody(headers, Buffer.from(body), 's3cret', new Date(now.getTime() + 60_000)),
    ).toBeUndefined();
    expect(verifyBody(headers, body, 'other', now)).toBe('signature does not match');
    expect(verifyBody(headers, `${body} `, 's3cret', now)).toBe('digest does not match the body');
    expect(verifyBody(headers, body, 's3cret', new Date(now.getTime() + 10 * 60_000))).toBe(
      'date too far from now',
    );
    expect(verifyBody({ ...headers, signature: undefined }, body, 's3cret', now)).toBe('missing signature');
    expect(verifyBody({ ...headers, signature: 'garbage' }, body, 's3cret', now)).toBe('malformed signature');
    const rsa = (headers.signature ?? '').replace('hmac-sha256', 'rsa-sha256');
    expect(verifyBody({ ...headers, signature: rsa }, body, 's3cret', now)).toBe('unsupported algorithm');
  });
});
