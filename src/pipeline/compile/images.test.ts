import { describe, expect, it } from 'vitest';
import { imageRegistry, imageRepository, normalizeRegistry, sameImage } from './images.js';
import { parseDockerConfig } from './registry.js';

describe('image references', () => {
  it.each([
    ['golang', 'docker.io', 'docker.io/library/golang'],
    ['golang:1.22', 'docker.io', 'docker.io/library/golang'],
    ['plugins/docker:20', 'docker.io', 'docker.io/plugins/docker'],
    ['docker.io/plugins/docker', 'docker.io', 'docker.io/plugins/docker'],
    ['index.docker.io/library/alpine', 'docker.io', 'docker.io/library/alpine'],
    ['ghcr.io/octocat/app:1', 'ghcr.io', 'ghcr.io/octocat/app'],
    ['localhost:5000/app:dev', 'localhost:5000', 'localhost:5000/app'],
    ['localhost/app', 'localhost', 'localhost/app'],
    ['alpine@sha256:abcd', 'docker.io', 'docker.io/library/alpine'],
  ])('%s is pulled from %s as %s', (image, registry, repository) => {
    expect(imageRegistry(image)).toBe(registry);
    expect(imageRepository(image)).toBe(repository);
  });

  it('compares images whatever their tags', () => {
    expect(sameImage('plugins/docker', 'docker.io/plugins/docker:latest')).toBe(true);
    expect(sameImage('plugins/docker', 'plugins/ecr')).toBe(false);
  });

  it('reads registry addresses of Docker config files as hosts', () => {
    expect(normalizeRegistry('https://index.docker.io/v1/')).toBe('docker.io');
    expect(normalizeRegistry('Registry.Example.com:5000')).toBe('registry.example.com:5000');
  });
});

describe('parseDockerConfig', () => {
  it('reads auth entries and username/password entries', () => {
    const config = JSON.stringify({
      auths: {
        'https://index.docker.io/v1/': { auth: Buffer.from('octocat:pa:ss').toString('base64') },
        'ghcr.io': { username: 'bot', password: 'token' },
        'broken.example.com': { auth: Buffer.from('no-colon').toString('base64') },
      },
    });
    expect(parseDockerConfig(config)).toEqual([
      { address: 'docker.io', username: 'octocat', password: 'pa:ss' },
      { address: 'ghcr.io', username: 'bot', password: 'token' },
    ]);
  });

  it.each([
    ['not json', 'is not JSON'],
    ['{"credsStore": "desktop"}', 'has no "auths" object'],
  ])('explains what is wrong with %j', (text, message) => {
    expect(() => parseDockerConfig(text)).toThrow(message);
  });
});
