/*
 * What the double's own test uses: a request signer written from RFC 5849 (§3.4.1 base string,
 * §3.4.3 RSA-SHA1, §3.5.1 header) independently of the double's verifier, and a receiver of
 * webhook deliveries.
 */
import { randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BitbucketServerDouble } from './index.js';

const pct = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

export interface SignOptions {
  token?: string;
  oauth?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  consumerKey?: string;
  timestamp?: number;
  nonce?: string;
  /** Signs this URL but sends the request to the real one (a tampered request). */
  signedUrl?: string;
}

/** A request signed per RFC 5849 with RSA-SHA1, written independently of the double. */
export function signed(double: BitbucketServerDouble, method: string, url: string, o: SignOptions = {}) {
  const target = new URL(o.signedUrl ?? url);
  const oauth: Record<string, string> = {
    oauth_consumer_key: o.consumerKey ?? double.consumerKey,
    oauth_nonce: o.nonce ?? randomBytes(16).toString('hex'),
    oauth_signature_method: 'RSA-SHA1',
    oauth_timestamp: String(o.timestamp ?? Math.floor(Date.now() / 1000)),
    oauth_version: '1.0',
    ...(o.token === undefined ? {} : { oauth_token: o.token }),
    ...o.oauth,
  };
  const pairs = [...target.searchParams, ...Object.entries(oauth), ...Object.entries(o.form ?? {})];
  const normalized = pairs
    .map(([k, v]) => [pct(k), pct(v)])
    .sort(([a = '', b = ''], [c = '', d = '']) => (a === c ? (b < d ? -1 : b > d ? 1 : 0) : a < c ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const base = [method, pct(`${target.protocol}//${target.host}${target.pathname}`), pct(normalized)].join(
    '&',
  );
  oauth.oauth_signature = sign('sha1', Buffer.from(base), double.privateKeyPem).toString('base64');
  const header = Object.entries(oauth)
    .map(([k, v]) => `${pct(k)}="${pct(v)}"`)
    .join(', ');
  const headers: Record<string, string> = { authorization: `OAuth ${header}` };
  let body: string | undefined;
  if (o.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(o.form).toString();
  } else if (o.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.json);
  }
  return fetch(url, { method, headers, body, redirect: 'manual' });
}

export const problemOf = async (res: Response) => new URLSearchParams(await res.text()).get('oauth_problem');

/** A receiver of deliveries: what it got, answering 200. */
export async function receiver() {
  const got: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
