import { describe, expect, it } from 'vitest';
import { linuxDockerFilter } from '../../testing/filter.js';
import { matchesFilter, type FilterFacts } from './filter.js';

const facts = (stage: Partial<FilterFacts['stage']>): FilterFacts => ({
  stage: { kind: 'pipeline', type: 'docker', os: 'linux', arch: 'amd64', variant: '', kernel: '', ...stage },
  labels: {},
  repo: { slug: 'octocat/hello', trusted: false },
  event: 'push',
});

describe('matchesFilter', () => {
  it('matches type and platform; a stage without a platform goes anywhere', () => {
    const docker = linuxDockerFilter();
    expect(matchesFilter(docker, facts({}))).toBe(true);
    expect(matchesFilter(docker, facts({ arch: 'arm64' }))).toBe(false);
    expect(matchesFilter(docker, facts({ type: 'ssh' }))).toBe(false);
    expect(matchesFilter(docker, facts({ os: '', arch: '' }))).toBe(true);
  });

  it('lets a runner that names no platform (ssh: its hosts are of every kind) take any', () => {
    const ssh = { ...linuxDockerFilter(), type: 'ssh', os: '', arch: '' };
    expect(matchesFilter(ssh, facts({ type: 'ssh', os: 'windows', arch: 'arm64' }))).toBe(true);
    expect(matchesFilter(ssh, facts({ type: 'docker' }))).toBe(false);
  });

  it('lets the VM runner (macstadium) take type: vm stages too, svc’s alias', () => {
    const vm = { ...linuxDockerFilter(), type: 'macstadium', os: '', arch: '' };
    expect(matchesFilter(vm, facts({ type: 'vm' }))).toBe(true);
    expect(matchesFilter(vm, facts({ type: 'macstadium' }))).toBe(true);
    expect(matchesFilter(linuxDockerFilter(), facts({ type: 'vm' }))).toBe(false);
  });
});
