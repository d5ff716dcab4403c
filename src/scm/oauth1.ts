import { createSign, randomBytes, type KeyObject } from 'node:crypto';

/*
 * OAuth 1.0a request signing with RSA-SHA1 (RFC 5849), as Bitbucket Server's application links take
 * it: every request carries an `Authorization: OAuth …` header signed with the consumer's private
 * key. With RSA-SHA1 the token secret takes no part in the signature.
 */

/** RFC 5849 §3.6: everything but ALPHA, DIGIT, `-`, `.`, `_` and `~`, as %XX in upper case. */
export function percentEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** A `application/x-www-form-urlencoded` component's pairs, decoded (`+` is a space). */
function formPairs(text: string): [string, string][] {
  if (text === '') return [];
  return text.split('&').map((pair) => {
    const at = pair.indexOf('=');
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
    return at < 0 ? [decode(pair), ''] : [decode(pair.slice(0, at)), decode(pair.slice(at + 1))];
  });
}

/**
 * The signature base string (RFC 5849 §3.4.1): the method in upper case, the base URI (scheme and
 * host in lower case, default ports dropped, the path as sent, no query) and the normalized
 * parameters (query, form body, `oauth_*` but the signature; each name and value encoded, sorted by
 * name, then value), each encoded and joined by `&`.
 */
export function signatureBaseString(
  method: string,
  url: string,
  oauth: Readonly<Record<string, string>>,
  formBody = '',
): string {
  const parsed = new URL(url);
  const defaultPort =
    (parsed.protocol === 'http:' && parsed.port === '80') ||
    (parsed.protocol === 'https:' && parsed.port === '443');
  const host = parsed.port === '' || defaultPort ? parsed.hostname : `${parsed.hostname}:${parsed.port}`;
  const baseUri = `${parsed.protocol.toLowerCase()}//${host.toLowerCase()}${parsed.pathname}`;
  const pairs = [
    ...formPairs(parsed.search.replace(/^\?/, '')),
    ...formPairs(formBody),
    ...Object.entries(oauth).filter(([name]) => name !== 'oauth_signature' && name !== 'realm'),
  ]
    .map(([name, value]) => [percentEncode(name), percentEncode(value)] as const)
    .sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0));
  const normalized = pairs.map(([name, value]) => `${name}=${value}`).join('&');
  return [method.toUpperCase(), percentEncode(baseUri), percentEncode(normalized)].join('&');
}

/** What a signed request needs. */
export interface OAuth1Request {
  method: string;
  url: string;
  consumerKey: string;
  /** The consumer's RSA private key (PEM, PKCS#1 or PKCS#8, or a KeyObject). */
  privateKey: string | KeyObject;
  /** The request or access token; none for the request-token step. */
  token?: string;
  /** Further `oauth_*` parameters of the step: `oauth_callback`, `oauth_verifier`. */
  extra?: Readonly<Record<string, string>>;
  /** A form-encoded body, which the signature covers. */
  formBody?: string;
  /** For tests: the clock (Unix seconds) and the nonce. */
  timestamp?: number;
  nonce?: string;
}

/** The `Authorization: OAuth …` header of a request, signed with RSA-SHA1 (RFC 5849 §3.4.3, §3.5.1). */
export function oauth1Authorization(request: OAuth1Request): string {
  const params: Record<string, string> = {
    oauth_consumer_key: request.consumerKey,
    oauth_nonce: request.nonce ?? randomBytes(16).toString('hex'),
    oauth_signature_method: 'RSA-SHA1',
    oauth_timestamp: String(request.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    ...(request.token === undefined ? {} : { oauth_token: request.token }),
    ...request.extra,
  };
  const base = signatureBaseString(request.method, request.url, params, request.formBody);
  const signature = createSign('RSA-SHA1').update(base).sign(request.privateKey, 'base64');
  const header = Object.entries({ ...params, oauth_signature: signature })
    .map(([name, value]) => `${percentEncode(name)}="${percentEncode(value)}"`)
    .join(', ');
  return `OAuth ${header}`;
}

/** The parameters of an `Authorization: OAuth …` header, decoded (for servers and tests). */
export function parseOAuth1Authorization(header: string): Record<string, string> | undefined {
  const body = /^OAuth\s+(.*)$/i.exec(header.trim())?.[1];
  if (body === undefined) return undefined;
  const params: Record<string, string> = {};
  for (const match of body.matchAll(/([A-Za-z0-9_.~%-]+)="([^"]*)"/g)) {
    params[decodeURIComponent(match[1] ?? '')] = decodeURIComponent(match[2] ?? '');
  }
  return params;
}
