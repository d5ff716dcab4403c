import type { ExecSpec } from '../../core/engine.js';

/** Where and as whom a stage runs over SSH. */
export interface SshTarget {
  host: string;
  port: number;
  user: string;
  /** Password login; used when no key is given, or when the key is refused. */
  password?: string | undefined;
  /** A private key in OpenSSH or PEM format, and its passphrase when it has one. */
  privateKey?: string | undefined;
  passphrase?: string | undefined;
}

/**
 * `host`, `host:port` or `[v6 address]:port` (the `server.host` of Drone's ssh pipelines) as host and
 * port (22 when none is given); undefined for something that is no address.
 */
export function parseAddress(address: string): { host: string; port: number } | undefined {
  const text = address.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const plain = /^([^:\s[\]]+)(?::(\d+))?$/.exec(text);
  const match = bracketed ?? plain;
  if (match === null) return undefined;
  const host = match[1] ?? '';
  const port = match[2] === undefined ? 22 : Number(match[2]);
  if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

/** How OpenSSH names a host in known_hosts: the bare name on port 22, `[host]:port` elsewhere. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** The host of a stage, from its `server:` block (Drone's default user: root). */
export function targetOf(spec: ExecSpec): SshTarget {
  const host = spec.host;
  if (host === undefined) throw new Error('the pipeline names no server to run on');
  const address = parseAddress(host.address);
  if (address === undefined)
    throw new Error(`server.host: "${host.address}" is not an address; expected host or host:port`);
  return {
    ...address,
    user: host.user !== '' ? host.user : 'root',
    ...(host.password === '' ? {} : { password: host.password }),
    ...(host.privateKey === '' ? {} : { privateKey: host.privateKey }),
  };
}
