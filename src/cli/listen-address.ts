/**
 * Turns a listen address in Go's form (`:8080`, `8080`, `127.0.0.1:8080`, `[::1]:8080`) into the
 * host and port Node listens on. An empty host means every interface, as in Go.
 */
export function parseListenAddress(address: string): { host: string; port: number } {
  const match = /^(?:(?:\[([^\]]+)\]|([^:[\]]*)):)?(\d+)$/.exec(address.trim());
  const port = Number(match?.[3]);
  if (!match || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`"${address}" is not a listen address; expected :8080, 127.0.0.1:8080 or [::1]:8080`);
  }
  const host = match[1] ?? match[2] ?? '';
  return { host: host === '' ? '0.0.0.0' : host, port };
}
