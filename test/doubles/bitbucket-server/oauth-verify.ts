/**
 * The double's own check of OAuth 1.0a signatures (RFC 5849), as an Atlassian application link with
 * RSA-SHA1 incoming authentication does it:
 *
 * - §3.5.1 `Authorization: OAuth k="v", …` (names and values percent-encoded; `realm` ignored).
 * - §3.4.1 base string: upper-case method, base URI (lower-case scheme and host, default port
 *   dropped, path exactly as sent, no query), normalized parameters from the query, a
 *   `application/x-www-form-urlencoded` body and the header's `oauth_*` (without `oauth_signature`
 *   and `realm`), each RFC 3986 percent-encoded, sorted by name then value.
 * - §3.4.3 RSASSA-PKCS1-v1_5 over SHA-1 with the consumer's public key; the token secret plays no part.
 * - Then, in net.oauth's order: version (`1.0` if present), signature method `RSA-SHA1`, consumer key,
 *   timestamp within ±5 minutes of the double's clock, nonce unused (per consumer and timestamp;
 *   recorded before the signature is checked), signature.
 *
 * Refusals carry the OAuth Problem Reporting body (`oauth_problem=…`, form-encoded) and
 * `WWW-Authenticate: OAuth realm="<percent-encoded base URL>", oauth_problem="…"`; the status is
 * net.oauth's: 400 for parameter_absent, parameter_rejected, version_rejected, timestamp_refused and
 * signature_method_rejected, 401 for the rest. Not modelled: PLAINTEXT/HMAC-SHA1, 2-legged OAuth,
 * `oauth_*` parameters sent in the query or body instead of the header.
 */
import { verify } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Reply } from '../forge/router.js';
import type { Env } from './env.js';

/** RFC 3986 percent-encoding: everything but `A-Z a-z 0-9 - . _ ~`. */
export function enc(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const BAD_REQUEST = new Set([
  'parameter_absent',
  'parameter_rejected',
  'version_rejected',
  'timestamp_refused',
  'signature_method_rejected',
]);

/** A refusal: the problem and its extra report parameters. */
export function oauthProblem(env: Env, problem: string, extra: Record<string, string> = {}): Reply {
  const fields = [['oauth_problem', problem], ...Object.entries(extra)];
  return {
    status: BAD_REQUEST.has(problem) ? 400 : 401,
    text: fields.map(([k, v]) => `${enc(k ?? '')}=${enc(v ?? '')}`).join('&'),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'www-authenticate': `OAuth realm="${enc(env.url)}", oauth_problem="${enc(problem)}"`,
    },
  };
}

/** The `oauth_*` parameters of an `Authorization: OAuth …` header; undefined without one. */
export function authorizationParams(header: string | undefined): Map<string, string> | undefined {
  const rest = /^OAuth\s+(.*)$/is.exec(header ?? '')?.[1];
  if (rest === undefined) return undefined;
  const params = new Map<string, string>();
  for (const [, name, value] of rest.matchAll(/([^\s=,]+)\s*=\s*"([^"]*)"/g)) {
    try {
      params.set(decodeURIComponent(name ?? ''), decodeURIComponent(value ?? ''));
    } catch {
      params.set(name ?? '', value ?? '');
    }
  }
  params.delete('realm');
  return params;
}

/** The signature base string of a request (RFC 5849 §3.4.1). */
export function baseString(
  req: IncomingMessage,
  scheme: 'http' | 'https',
  body: Buffer,
  oauth: Map<string, string>,
): string {
  const raw = req.url ?? '/';
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const [hostname = '', port] = (req.headers.host ?? '').toLowerCase().split(/:(?=\d+$)/);
  const keep =
    port !== undefined && !(scheme === 'http' && port === '80') && !(scheme === 'https' && port === '443');
  const baseUri = `${scheme}://${hostname}${keep ? `:${port}` : ''}${path}`;
  const pairs: [string, string][] = [...new URLSearchParams(q < 0 ? '' : raw.slice(q + 1))];
  if ((req.headers['content-type'] ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded'))
    pairs.push(...new URLSearchParams(body.toString('utf8')));
  for (const [k, v] of oauth) if (k !== 'oauth_signature') pairs.push([k, v]);
  const normalized = pairs
    .map(([k, v]) => [enc(k), enc(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  return `${(req.method ?? 'GET').toUpperCase()}&${enc(baseUri)}&${enc(normalized)}`;
}

const REQUIRED = [
  'oauth_consumer_key',
  'oauth_signature_method',
  'oauth_signature',
  'oauth_timestamp',
  'oauth_nonce',
];

/** Checks a signed request; answers its `oauth_*` parameters, or the refusal to send. */
export function verifySigned(
  env: Env,
  req: IncomingMessage,
  scheme: 'http' | 'https',
  body: Buffer,
  oauth: Map<string, string>,
): { ok: true } | { ok: false; reply: Reply } {
  const refuse = (problem: string, extra?: Record<string, string>) => ({
    ok: false as const,
    reply: oauthProblem(env, problem, extra),
  });
  const absent = REQUIRED.filter((name) => (oauth.get(name) ?? '') === '');
  if (absent.length > 0) return refuse('parameter_absent', { oauth_parameters_absent: absent.join('&') });
  const version = oauth.get('oauth_version');
  if (version !== undefined && version !== '1.0')
    return refuse('version_rejected', { oauth_acceptable_versions: '1.0-1.0' });
  if (oauth.get('oauth_signature_method') !== 'RSA-SHA1') return refuse('signature_method_rejected');
  const consumer = oauth.get('oauth_consumer_key') ?? '';
  if (consumer !== env.consumer.key) return refuse('consumer_key_unknown');
  const timestamp = oauth.get('oauth_timestamp') ?? '';
  const window = 300;
  const now = Math.floor(env.now() / 1000);
  if (!/^\d+$/.test(timestamp) || Math.abs(Number(timestamp) - now) > window)
    return refuse('timestamp_refused', { oauth_acceptable_timestamps: `${now - window}-${now + window}` });
  const nonce = `${consumer}|${timestamp}|${oauth.get('oauth_nonce') ?? ''}`;
  if (env.nonces.has(nonce)) return refuse('nonce_used');
  env.nonces.add(nonce);
  const base = baseString(req, scheme, body, oauth);
  const signature = oauth.get('oauth_signature') ?? '';
  let valid = false;
  try {
    valid = verify(
      'sha1',
      Buffer.from(base, 'utf8'),
      env.consumer.publicKey,
      Buffer.from(signature, 'base64'),
    );
  } catch {
    valid = false;
  }
  if (!valid)
    return refuse('signature_invalid', {
      oauth_signature: signature,
      oauth_signature_base_string: base,
      oauth_signature_method: 'RSA-SHA1',
    });
  return { ok: true };
}
