import { describe, expect, it } from 'vitest';
import { execSpec, execStep } from '../../runner/testing/spec.js';
import { containerConfig } from './container-config.js';
import { usesStageNetwork } from './resources.js';

// A service: steps must reach it by name, so the run has a network of its own.
const spec = execSpec([execStep('db', { detach: true })], {
  runId: 'run/42',
  labels: { 'io.svc.repo': 'octo/app' },
  volumes: [
    { kind: 'host', name: 'docker-sock', path: '/var/run/docker.sock' },
    { kind: 'temp', name: 'cache', medium: 'disk', sizeLimit: 0 },
    { kind: 'temp', name: 'ram', medium: 'memory', sizeLimit: 1024 },
  ],
});

describe('containerConfig', () => {
  it('puts the steps of a strictly sequential stage on the default bridge: nobody to reach by name', () => {
    const first = execStep('first');
    const second = execStep('second', { dependsOn: ['first'] });
    const sequential = execSpec([first, second], { runId: 'run/8' });
    expect(usesStageNetwork(sequential)).toBe(false);
    const config = containerConfig(sequential, second, 'runner-1');
    expect(config.HostConfig?.NetworkMode).toBe('bridge');
    expect(config.NetworkingConfig).toBeUndefined();
    const parallel = execSpec([first, execStep('other')], { runId: 'run/9' });
    expect(usesStageNetwork(parallel)).toBe(true);
  });

  it('mounts a host working copy as the workspace when the spec names one (svc exec)', () => {
    const local = execSpec([], {
      runId: 'run/7',
      workspace: { base: '/drone/src', path: '/drone/src', hostPath: '/home/me/app' },
    });
    const config = containerConfig(local, execStep('test'), 'runner-1');
    expect(config.HostConfig?.Mounts?.[0]).toEqual({
      Type: 'bind',
      Source: '/home/me/app',
      Target: '/drone/src',
    });
  });

  it('maps a step to a container on the stage network, with its name as alias', () => {
    const step = execStep('build step', {
      image: 'golang:1.23',
      entrypoint: ['/bin/sh', '-c'],
      command: ['go build'],
      envs: { GOFLAGS: '-mod=vendor' },
      secrets: [{ name: 'token', env: 'TOKEN', data: 'abc', mask: true }],
      user: '1000:1000',
      workingDir: '/drone/src',
      labels: { team: 'core' },
    });
    const config = containerConfig(spec, step, 'runner-1');
    expect(config).toMatchObject({
      name: 'svc-run-42-build-step',
      Image: 'golang:1.23',
      Entrypoint: ['/bin/sh', '-c'],
      Cmd: ['go build'],
      Env: ['GOFLAGS=-mod=vendor', 'TOKEN=abc'],
      User: '1000:1000',
      WorkingDir: '/drone/src',
      Tty: false,
      Labels: {
        'io.svc.repo': 'octo/app',
        'io.svc.run': 'run/42',
        'io.svc.owner': 'runner-1',
        'io.svc.step': 'build step',
        team: 'core',
      },
      NetworkingConfig: { EndpointsConfig: { 'svc-run-42': { Aliases: ['build step'] } } },
    });
    expect(config.HostConfig).toMatchObject({
      NetworkMode: 'svc-run-42',
      Mounts: [{ Type: 'volume', Source: 'svc-run-42-workspace', Target: '/drone' }],
      Privileged: false,
    });
    // Empty settings keep Docker's (and the image's) defaults.
    expect(config.HostConfig?.Memory).toBeUndefined();
    expect(config.HostConfig?.Dns).toBeUndefined();
  });

  it('keeps the image entrypoint and command when the step sets none', () => {
    const config = containerConfig(spec, execStep('svc'), 'r');
    expect(config.Entrypoint).toBeUndefined();
    expect(config.Cmd).toBeUndefined();
    expect(config.User).toBeUndefined();
    expect(config.WorkingDir).toBeUndefined();
  });

  it('mounts host paths as binds, disk temp volumes as volumes and memory ones as tmpfs', () => {
    const step = execStep('s', {
      mounts: [
        { name: 'docker-sock', path: '/var/run/docker.sock' },
        { name: 'docker-sock', path: '/run/docker.sock', readOnly: true },
        { name: 'cache', path: '/root/.cache' },
        { name: 'ram', path: '/ram' },
      ],
    });
    const host = containerConfig(spec, step, 'r').HostConfig;
    expect(host?.Binds).toEqual([
      '/var/run/docker.sock:/var/run/docker.sock',
      '/var/run/docker.sock:/run/docker.sock:ro',
    ]);
    expect(host?.Mounts).toEqual([
      { Type: 'volume', Source: 'svc-run-42-workspace', Target: '/drone' },
      { Type: 'volume', Source: 'svc-run-42-vol-cache', Target: '/root/.cache' },
      { Type: 'tmpfs', Source: '', Target: '/ram', TmpfsOptions: { SizeBytes: 1024, Mode: 0o1777 } },
    ]);
  });

  it('refuses a mount of a volume the stage does not define', () => {
    const step = execStep('s', { mounts: [{ name: 'nope', path: '/x' }] });
    expect(() => containerConfig(spec, step, 'r')).toThrow(
      'step "s" mounts volume "nope", which the stage does not define',
    );
  });

  it('passes limits, DNS, hosts, devices and privileges', () => {
    const step = execStep('s', {
      privileged: true,
      dns: ['10.0.0.2'],
      dnsSearch: ['corp.test'],
      extraHosts: ['db.test:10.0.0.3'],
      devices: ['/dev/fuse', '/dev/sda:/dev/xvda:r'],
      memLimit: 512,
      memSwapLimit: 1024,
      shmSize: 64,
      cpuPeriod: 100000,
      cpuQuota: 50000,
      cpuShares: 512,
      cpuSet: ['0', '1'],
    });
    expect(containerConfig(spec, step, 'r').HostConfig).toMatchObject({
      Privileged: true,
      Dns: ['10.0.0.2'],
      DnsSearch: ['corp.test'],
      ExtraHosts: ['db.test:10.0.0.3'],
      Devices: [
        { PathOnHost: '/dev/fuse', PathInContainer: '/dev/fuse', CgroupPermissions: 'rwm' },
        { PathOnHost: '/dev/sda', PathInContainer: '/dev/xvda', CgroupPermissions: 'r' },
      ],
      Memory: 512,
      MemorySwap: 1024,
      ShmSize: 64,
      CpuPeriod: 100000,
      CpuQuota: 50000,
      CpuShares: 512,
      CpusetCpus: '0,1',
    });
  });

  it('uses the step network mode instead of the stage network', () => {
    const config = containerConfig(spec, execStep('s', { networkMode: 'host' }), 'r');
    expect(config.HostConfig?.NetworkMode).toBe('host');
    expect(config.NetworkingConfig).toBeUndefined();
  });
});
