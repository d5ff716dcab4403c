/** Where users and git providers reach the server: SVC_SERVER_PROTO and SVC_SERVER_HOST. */
export interface ServerAddress {
  readonly proto: 'http' | 'https';
  readonly host: string;
}

/** An absolute URL on the server's public address; `path` starts with `/`. */
export function publicUrl(address: ServerAddress, path: string): string {
  return `${address.proto}://${address.host}${path}`;
}

/** The public address plus the optional proxy that git provider webhooks go through. */
export interface HookAddress extends ServerAddress {
  /** SVC_SERVER_PROXY_PROTO and SVC_SERVER_PROXY_HOST; both set or both null. */
  readonly proxyProto: 'http' | 'https' | null;
  readonly proxyHost: string | null;
}

/**
 * Where git providers deliver webhooks: `/hook` on the proxy address when SVC_SERVER_PROXY_HOST and
 * SVC_SERVER_PROXY_PROTO are set (a server behind a firewall), else on the public address.
 */
export function webhookUrl(address: HookAddress): string {
  if (address.proxyProto !== null && address.proxyHost !== null) {
    return publicUrl({ proto: address.proxyProto, host: address.proxyHost }, '/hook');
  }
  return publicUrl(address, '/hook');
}
