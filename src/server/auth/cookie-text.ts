/** The attributes svc sets on its cookies. */
export interface CookieAttributes {
  readonly expires?: Date;
  /** Seconds. */
  readonly maxAge?: number;
  readonly path: string;
  readonly httpOnly: boolean;
  readonly secure: boolean;
  readonly sameSite: 'Lax' | 'Strict';
}

/**
 * A Set-Cookie header value. Values are percent-encoded, so any text is safe; svc's own values
 * (base64url and digits) come out unchanged. (@fastify/cookie's standalone serializer only works
 * once its plugin is registered on an app, which route registration functions should not rely on.)
 */
export function serializeCookie(name: string, value: string, attributes: CookieAttributes): string {
  const parts = [`${name}=${encodeURIComponent(value)}`];
  if (attributes.maxAge !== undefined) parts.push(`Max-Age=${Math.floor(attributes.maxAge)}`);
  if (attributes.expires !== undefined) parts.push(`Expires=${attributes.expires.toUTCString()}`);
  parts.push(`Path=${attributes.path}`);
  if (attributes.httpOnly) parts.push('HttpOnly');
  if (attributes.secure) parts.push('Secure');
  parts.push(`SameSite=${attributes.sameSite}`);
  return parts.join('; ');
}

/** The cookies of a Cookie request header, by name; the first of duplicate names wins. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (header ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0) continue;
    const name = pair.slice(0, equals).trim();
    if (name === '' || cookies.has(name)) continue;
    cookies.set(name, decode(pair.slice(equals + 1).trim()));
  }
  return cookies;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    // A malformed escape is someone else's cookie or a forgery: keep it as sent, the signature check fails it.
    return value;
  }
}
