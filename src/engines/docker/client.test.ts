import { describe, expect, it } from 'vitest';
import { dockerClient } from './client.js';

describe('dockerClient', () => {
  it('talks to a unix socket, the default one when no host is given', () => {
    expect(dockerClient({ host: 'unix:///tmp/x/docker.sock' }).endpoint).toEqual({
      socketPath: '/tmp/x/docker.sock',
    });
    expect(dockerClient({ host: undefined }).endpoint).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(dockerClient({ host: '' }).endpoint).toEqual({ socketPath: '/var/run/docker.sock' });
  });

  it('talks TCP, with TLS when asked or on port 2376', () => {
    expect(dockerClient({ host: 'tcp://docker.test:2375' }).endpoint).toEqual({
      host: 'docker.test',
      port: 2375,
      tls: false,
    });
    expect(dockerClient({ host: 'docker.test:2376' }).endpoint).toEqual({
      host: 'docker.test',
      port: 2376,
      tls: true,
    });
    expect(dockerClient({ host: 'tcp://docker.test', tlsVerify: true }).endpoint).toMatchObject({
      port: 2376,
      tls: true,
    });
    expect(dockerClient({ host: 'tcp://[::1]:2375' }).endpoint).toMatchObject({ host: '::1' });
  });

  it('refuses a host it cannot use', () => {
    expect(() => dockerClient({ host: 'ssh://user@docker.test' })).toThrow(
      'only unix:// and tcp:// are supported',
    );
  });
});
