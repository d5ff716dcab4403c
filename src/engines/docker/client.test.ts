import { describe, expect, it } from 'vitest';
import { dockerClient } from './client.js';

/** The connection settings dockerode's modem ended up with. */
function modemOf(host: string | undefined, tlsVerify?: boolean): Record<string, unknown> {
  const {
    socketPath,
    host: hostname,
    port,
    protocol,
  } = dockerClient({ host, tlsVerify }).modem as unknown as Record<string, unknown>;
  return { socketPath, host: hostname, port, protocol };
}

describe('dockerClient', () => {
  it('talks to a unix socket, the default one when no host is given', () => {
    expect(modemOf('unix:///tmp/x/docker.sock')).toMatchObject({
      socketPath: '/tmp/x/docker.sock',
      host: undefined,
    });
    expect(modemOf(undefined)).toMatchObject({ socketPath: '/var/run/docker.sock', host: undefined });
    expect(modemOf('')).toMatchObject({ socketPath: '/var/run/docker.sock' });
  });

  it('talks TCP, with TLS when asked or on port 2376', () => {
    expect(modemOf('tcp://docker.test:2375')).toMatchObject({
      host: 'docker.test',
      port: '2375',
      protocol: 'http',
    });
    expect(modemOf('docker.test:2376')).toMatchObject({
      host: 'docker.test',
      port: '2376',
      protocol: 'https',
    });
    expect(modemOf('tcp://docker.test', true)).toMatchObject({ port: '2376', protocol: 'https' });
  });

  it('refuses a host it cannot use', () => {
    expect(() => dockerClient({ host: 'ssh://user@docker.test' })).toThrow(
      'only unix:// and tcp:// are supported',
    );
  });
});
