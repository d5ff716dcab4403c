import { isIP } from 'node:net';
import type { EntryRule } from './collections.js';
import { fail, ok, shown, type Codec } from './codec.js';

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const IPV6 = /^[0-9A-Fa-f:.]+$/;

/** An http:// or https:// URL. */
export function httpUrl(example = 'https://git.example.com'): Codec<string> {
  const expected = `an http:// or https:// URL such as ${example}`;
  return {
    type: 'string',
    expected,
    parse: (raw, ctx) =>
      isHttpUrl(raw) ? ok(raw) : fail(`${shown(raw, ctx)} is not an http(s) URL; expected ${expected}`),
    print: (value) => value,
  };
}

/** True for an absolute http:// or https:// URL with a host. */
export function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

/** A host name or IP address, with an optional port when `withPort` (no scheme, no path). */
export function host(withPort: boolean): Codec<string> {
  const expected = withPort
    ? 'a host name with an optional port and no scheme, such as ci.example.com or ci.example.com:8443'
    : 'a host name or IP address without scheme or port, such as share.example.com';
  return {
    type: 'string',
    expected,
    parse(raw, ctx) {
      if (raw.includes('://')) {
        return fail(
          `${shown(raw, ctx)} has a scheme; expected ${expected} (the protocol is a separate setting)`,
        );
      }
      const split = splitHostPort(raw);
      const valid = split !== undefined && validHost(split.host) && (withPort || split.port === undefined);
      return valid && (split.port === undefined || validPort(split.port))
        ? ok(raw)
        : fail(`${shown(raw, ctx)} is not a host; expected ${expected}`);
    },
    print: (value) => value,
  };
}

const LISTEN_EXPECTED =
  'a port or host:port such as :8080, 8080, 127.0.0.1:8080 or [::1]:8080 (port 0: any free port)';

/**
 * A listen address such as `:8080`, `8080`, `127.0.0.1:8080` or `[::1]:8080`; the value is its
 * normalized form (`8080` becomes `:8080`), in which an empty host means every interface.
 */
export const listenAddress: Codec<string> = {
  type: 'string',
  expected: LISTEN_EXPECTED,
  parse(raw, ctx) {
    const split = /^\d+$/.test(raw) ? { host: '', port: raw } : splitHostPort(raw);
    if (
      split?.port === undefined ||
      (split.host !== '' && !validHost(split.host)) ||
      // Port 0 asks the system for any free port (the log then says which): useful for tests.
      !(split.port === '0' || validPort(split.port))
    ) {
      return fail(`${shown(raw, ctx)} is not a listen address; expected ${LISTEN_EXPECTED}`);
    }
    return ok(`${split.host}:${Number(split.port)}`);
  },
  print: (value) => value,
};

function splitHostPort(text: string): { host: string; port: string | undefined } | undefined {
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(text);
  if (!match) return undefined;
  return { host: match[1] ?? '', port: match[2] };
}

function validHost(name: string): boolean {
  if (name.startsWith('[')) return name.endsWith(']') && IPV6.test(name.slice(1, -1)) && name.includes(':');
  return HOST_NAME.test(name);
}

function validPort(port: string): boolean {
  return /^\d+$/.test(port) && Number(port) >= 1 && Number(port) <= 65535;
}

/** proxy-addr's names for address ranges (Fastify's `trustProxy`). */
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An IP address, a CIDR range (`10.0.0.0/8`, `fd00::/8`), or one of proxy-addr's range names. */
export const proxyAddress: EntryRule = {
  one: 'an address',
  many: 'addresses',
  expected:
    'IP addresses or CIDR ranges such as 10.0.0.5, 10.0.0.0/8 or fd00::/8, or loopback, linklocal, uniquelocal',
  test(entry) {
    if (RANGE_NAMES.has(entry)) return true;
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || extra !== undefined) return false;
    if (prefix === undefined) return true;
    return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  },
};
