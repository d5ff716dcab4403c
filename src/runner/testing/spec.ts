import { randomUUID } from 'node:crypto';
import type { ExecSpec, ExecStep } from '../../core/engine.js';

/** An ExecStep with neutral defaults (runs on success, fails the stage, no limits), for tests. */
export function execStep(name: string, fields: Partial<ExecStep> = {}): ExecStep {
  return {
    id: name,
    name,
    image: 'local/busybox',
    pull: 'if-not-exists',
    entrypoint: [],
    command: [],
    envs: {},
    secrets: [],
    dependsOn: [],
    runPolicy: 'on-success',
    errPolicy: 'fail',
    detach: false,
    privileged: false,
    user: '',
    workingDir: '',
    mounts: [],
    networks: [],
    networkMode: '',
    dns: [],
    dnsSearch: [],
    extraHosts: [],
    devices: [],
    memLimit: 0,
    memSwapLimit: 0,
    shmSize: 0,
    cpuPeriod: 0,
    cpuQuota: 0,
    cpuShares: 0,
    cpuSet: [],
    timeout: 0,
    labels: {},
    ...fields,
  };
}

/** An ExecSpec with a fresh run id and the given steps, for tests. */
export function execSpec(steps: ExecStep[], fields: Partial<ExecSpec> = {}): ExecSpec {
  return {
    runId: `test-${randomUUID().slice(0, 8)}`,
    platform: { os: 'linux', arch: 'amd64' },
    workspace: { base: '/drone', path: '/drone/src' },
    steps,
    volumes: [],
    labels: {},
    ...fields,
  };
}

/** A local/busybox step running `script` in the workspace, as the compiler makes `commands` steps. */
export function busyboxShell(name: string, script: string, fields: Partial<ExecStep> = {}): ExecStep {
  return execStep(name, {
    image: 'local/busybox',
    pull: 'never',
    entrypoint: ['/bin/sh', '-c'],
    command: [script],
    workingDir: '/drone/src',
    ...fields,
  });
}
