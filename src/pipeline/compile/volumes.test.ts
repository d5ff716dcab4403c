import { describe, expect, it } from 'vitest';
import { compileYaml as compile } from '../../../test/fixtures/pipelines/compile-input.js';
import { DEFAULT_RUNNER_SETTINGS } from './input.js';

describe('compilePipeline: workspace and volumes', () => {
  it.each([
    ['', '/drone/src', '/drone/src'],
    ['workspace: {base: /go, path: src/github.com/octocat/hello}', '/go', '/go/src/github.com/octocat/hello'],
    ['workspace: {path: /drone/src}', '/drone/src', '/drone/src'],
    ['workspace: {path: app}', '/drone/src', '/drone/src/app'],
    ['workspace: {base: /etc}', '/drone/src', '/drone/src'],
  ])('%j mounts the workspace at %s and starts steps in %s', async (workspace, base, full) => {
    const { spec, step } = await compile(
      `kind: pipeline\n${workspace}\nsteps:\n- {name: a, image: x, commands: [pwd]}\n`,
    );
    expect(spec.workspace).toEqual({ base, path: full });
    expect(step('a').workingDir).toBe(full);
    expect(step('a').envs.DRONE_WORKSPACE).toBe(full);
    // The engine mounts the workspace itself, at the base; it is none of the step's mounts.
    expect(step('a').mounts).toEqual([]);
  });

  it('starts steps in their own working directory; services without commands keep the image one', async () => {
    const { step } = await compile(`
kind: pipeline
services:
- {name: db, image: postgres}
- {name: init, image: alpine, commands: [echo]}
steps:
- {name: rel, image: x, working_dir: sub/dir}
- {name: abs, image: x, working_dir: /tmp}
- {name: bg, image: x, detach: true}
`);
    expect(['db', 'init', 'rel', 'abs', 'bg'].map((name) => step(name).workingDir)).toEqual([
      '',
      '/drone/src',
      '/drone/src/sub/dir',
      '/tmp',
      '',
    ]);
    expect(step('bg').detach).toBe(true);
  });

  it('creates the pipeline volumes and mounts them where steps ask, with the runner volumes and devices', async () => {
    const { spec, step, warnings } = await compile(
      `
kind: pipeline
volumes:
- {name: cache, temp: {}}
- {name: ram, temp: {medium: memory, size_limit: 64m}}
- {name: sock, host: {path: /var/run/docker.sock}}
- {name: usb, host: {path: /dev/ttyUSB0}}
steps:
- name: a
  image: x
  volumes: [{name: cache, path: /cache}, {name: sock, path: /var/run/docker.sock}]
  devices: [{name: usb, path: /dev/serial}]
`,
      {
        runner: {
          ...DEFAULT_RUNNER_SETTINGS,
          volumes: ['/etc/ssl/certs:/etc/ssl/certs:ro', 'not-a-volume'],
          devices: ['/dev/fuse:/dev/fuse'],
          networks: ['ci-net'],
        },
      },
    );
    expect(spec.volumes).toEqual([
      { kind: 'temp', name: 'cache', medium: 'disk', sizeLimit: 0 },
      { kind: 'temp', name: 'ram', medium: 'memory', sizeLimit: 64 * 1024 ** 2 },
      { kind: 'host', name: 'sock', path: '/var/run/docker.sock' },
      { kind: 'host', name: 'usb', path: '/dev/ttyUSB0' },
      { kind: 'host', name: '_runner_volume_0', path: '/etc/ssl/certs' },
    ]);
    expect(step('a').mounts).toStrictEqual([
      { name: 'cache', path: '/cache' },
      { name: 'sock', path: '/var/run/docker.sock' },
      { name: '_runner_volume_0', path: '/etc/ssl/certs', readOnly: true },
    ]);
    expect(step('clone').mounts.map((mount) => mount.name)).toEqual(['_runner_volume_0']);
    expect(step('a').devices).toEqual(['/dev/ttyUSB0:/dev/serial', '/dev/fuse:/dev/fuse']);
    expect(step('a').networks).toEqual(['ci-net']);
    expect(warnings).toEqual([
      'runner volume "not-a-volume" is not of the form /host/path:/container/path[:ro]; it is not mounted',
    ]);
  });
});
