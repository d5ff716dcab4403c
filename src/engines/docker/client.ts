import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '../../core/errors.js';
import { DockerClient } from './api/client.js';

export { DockerClient };

/** Where the Docker engine is, as the docker command takes it (its DOCKER_* variables). */
export interface DockerConnection {
  /** DOCKER_HOST: `unix:///path`, `tcp://host:port` or `host:port`; empty for the default socket. */
  host?: string | undefined;
  /** DOCKER_TLS_VERIFY: talk TLS (also implied by port 2376). */
  tlsVerify?: boolean | undefined;
  /** DOCKER_CERT_PATH: folder of ca.pem, cert.pem and key.pem for TLS. */
  certPath?: string | undefined;
}

const DEFAULT_SOCKET = '/var/run/docker.sock';

/**
 * A Docker Engine API client for `connection`. Nothing is read from process.env here: the
 * composition root decides.
 */
export function dockerClient(connection: DockerConnection = {}): DockerClient {
  const host = connection.host ?? '';
  if (host === '' || host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length) || DEFAULT_SOCKET;
    return new DockerClient({ socketPath });
  }
  let url: URL;
  try {
    url = new URL(host.includes('://') ? host : `tcp://${host}`);
  } catch (err) {
    throw new InvalidInputError(`DOCKER_HOST "${host}" is not unix:///path or tcp://host:port`, {
      cause: err,
    });
  }
  if (url.protocol !== 'tcp:' && url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidInputError(`DOCKER_HOST "${host}": only unix:// and tcp:// are supported`);
  }
  const port = url.port || (connection.tlsVerify ? '2376' : '2375');
  const tls = connection.tlsVerify === true || port === '2376' || url.protocol === 'https:';
  const certs =
    tls && connection.certPath
      ? {
          ca: readFileSync(join(connection.certPath, 'ca.pem')),
          cert: readFileSync(join(connection.certPath, 'cert.pem')),
          key: readFileSync(join(connection.certPath, 'key.pem')),
        }
      : {};
  // URL keeps an IPv6 host in brackets; a socket connection wants the bare address.
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new DockerClient({ host: hostname, port: Number(port), tls, ...certs });
}
