import type { Diagnostics } from '../diagnostics.js';
import type { Pipeline } from '../types.js';
import { RESERVED_VOLUMES } from './steps.js';

/** Operating systems a `platform.os` may name (where svc runners run). */
export const KNOWN_OS = [
  'linux',
  'windows',
  'darwin',
  'freebsd',
  'netbsd',
  'openbsd',
  'dragonfly',
  'solaris',
];
/** Architectures a `platform.arch` may name, in Go's (and Docker's) spelling. */
export const KNOWN_ARCH = ['amd64', 'arm64', 'arm', '386', 'ppc64le', 's390x', 'riscv64', 'mips64le'];

/** Directories a workspace volume must not hide; Drone falls back to /drone/src for them, and so does svc. */
export const RESTRICTED_WORKSPACES = [
  '/',
  '/bin',
  '/dev',
  '/etc',
  '/lib',
  '/proc',
  '/root',
  '/run',
  '/sbin',
  '/sys',
  '/usr',
  '/var',
  '/var/run',
];

/** Checks the pipeline-level sections: platform, workspace, volumes, type-specific requirements. */
export function checkPipelineSections(pipeline: Pipeline, diagnostics: Diagnostics): void {
  const at = (key: string) => pipeline.locations[key] ?? pipeline.position;
  const { os, arch } = pipeline.platform;
  if (os !== '' && !KNOWN_OS.includes(os)) {
    diagnostics.error(
      at('platform.os'),
      'platform.os',
      `unknown operating system "${os}"; expected one of ${KNOWN_OS.join(', ')}`,
    );
  }
  if (arch !== '' && !KNOWN_ARCH.includes(arch)) {
    const hint =
      arch === 'x86_64'
        ? ' (x86_64 is called amd64)'
        : arch === 'aarch64'
          ? ' (aarch64 is called arm64)'
          : '';
    diagnostics.error(
      at('platform.arch'),
      'platform.arch',
      `unknown architecture "${arch}"${hint}; expected one of ${KNOWN_ARCH.join(', ')}`,
    );
  }
  const { base, path } = pipeline.workspace;
  if (base !== '' && !base.startsWith('/')) {
    diagnostics.error(
      at('workspace.base'),
      'workspace.base',
      `"${base}" is not an absolute directory; expected e.g. base: /go`,
    );
  }
  const full = base !== '' || !path.startsWith('/') ? '' : path;
  const checked = full !== '' ? full : base;
  if (checked !== '' && RESTRICTED_WORKSPACES.includes(checked.replace(/(.)\/+$/, '$1'))) {
    diagnostics.warning(
      at('workspace'),
      'workspace',
      `"${checked}" would hide a system directory of the step images; /drone/src is used instead (expected a directory of your own, e.g. /go)`,
    );
  }
  const seen = new Map<string, string>();
  for (const volume of pipeline.volumes) {
    const volumeAt = volume.locations.name ?? volume.position;
    if (RESERVED_VOLUMES.includes(volume.name)) {
      diagnostics.error(
        volumeAt,
        `${volume.field}.name`,
        `"${volume.name}" is reserved for the workspace; expected another volume name`,
      );
    }
    const earlier = seen.get(volume.name);
    if (earlier !== undefined && volume.name !== '') {
      diagnostics.error(
        volumeAt,
        `${volume.field}.name`,
        `volume name "${volume.name}" is already used by ${earlier}; expected unique volume names`,
      );
    }
    seen.set(volume.name, volume.field);
  }
  if (pipeline.type === 'ssh' && (pipeline.server === undefined || isBlank(pipeline.server.host))) {
    diagnostics.error(
      at('server'),
      'server.host',
      'is required in an ssh pipeline; expected the address of the machine, e.g. server: {host: 10.0.0.5, user: root, ssh_key: {from_secret: key}}',
    );
  }
}

function isBlank(value: Pipeline['environment'][string]): boolean {
  return value.kind === 'value' && value.value === '';
}
