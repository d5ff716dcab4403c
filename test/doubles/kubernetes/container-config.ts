/*
 * A spec container as a Docker container, the way dockershim built it: `command` replaces the image's
 * ENTRYPOINT and `args` its CMD (`args` alone keeps the entrypoint; `command` alone drops the image's
 * CMD), both `$(VAR)`-expanded; the pod's network and IPC namespaces are the sandbox's
 * (`container:<sandbox>`), so containers of a pod reach each other on localhost; `resources.limits`
 * become the memory limit (swap off) and NanoCpus; `securityContext` (container over pod) gives
 * privileged and the user; `volumeMounts` become Docker mounts of the prepared volumes.
 */
import { join, normalize } from 'node:path';
import type { CreateBody, MountSpec } from './docker.js';
import { ConfigError, expand } from './env.js';
import type { PreparedVolume } from './pod-runtime.js';
import { bytes, parseQuantity } from './quantity.js';
import type { Container, Pod } from './types.js';

export interface ContainerPlanInput {
  pod: Pod;
  container: Container;
  /** What Docker runs: the image id, so the container runs exactly the image that was inspected. */
  image: string;
  env: Map<string, string>;
  sandboxId: string;
  volumes: ReadonlyMap<string, PreparedVolume>;
  labels: Record<string, string>;
  attempt: number;
}

/** dockershim's container name: `k8s_<container>_<pod>_<namespace>_<uid>_<attempt>`. */
export function dockerName(pod: Pod, container: string, attempt: number): string {
  const { name = '', namespace = '', uid = '' } = pod.metadata;
  return `k8s_${container}_${name}_${namespace}_${uid}_${attempt}`;
}

export function containerBody(input: ContainerPlanInput): CreateBody {
  const { pod, container, env, sandboxId } = input;
  const command = (container.command ?? []).map((part) => expand(part, env));
  const args = (container.args ?? []).map((part) => expand(part, env));
  const security = { ...pod.spec.securityContext, ...container.securityContext };
  const limits = container.resources?.limits ?? {};
  const memory = limits.memory === undefined ? undefined : bytes(limits.memory);
  const cpu = limits.cpu === undefined ? undefined : parseQuantity(limits.cpu);
  let user: string | undefined;
  if (security.runAsUser !== undefined) {
    user =
      security.runAsGroup === undefined
        ? String(security.runAsUser)
        : `${security.runAsUser}:${security.runAsGroup}`;
  }
  return {
    name: dockerName(pod, container.name, input.attempt),
    Image: input.image,
    ...(command.length > 0 ? { Entrypoint: command } : {}),
    ...(args.length > 0 ? { Cmd: args } : command.length > 0 ? { Cmd: null } : {}),
    Env: [...env].map(([name, value]) => `${name}=${value}`),
    ...(user === undefined ? {} : { User: user }),
    ...(container.workingDir === undefined || container.workingDir === ''
      ? {}
      : { WorkingDir: container.workingDir }),
    Labels: input.labels,
    Tty: false,
    HostConfig: {
      NetworkMode: `container:${sandboxId}`,
      IpcMode: `container:${sandboxId}`,
      Privileged: security.privileged === true,
      ...(memory === undefined || memory <= 0 ? {} : { Memory: memory, MemorySwap: memory }),
      ...(cpu === undefined || cpu <= 0 ? {} : { NanoCpus: Math.round(cpu * 1e9) }),
      Mounts: mounts(container, input.volumes),
    },
  };
}

function mounts(container: Container, volumes: ReadonlyMap<string, PreparedVolume>): MountSpec[] {
  return (container.volumeMounts ?? []).map((mount) => {
    const volume = volumes.get(mount.name);
    if (volume === undefined) throw new ConfigError(`volume "${mount.name}" is not prepared`);
    const readOnly = mount.readOnly === true || volume.kind === 'files';
    const subPath = mount.subPath ?? '';
    if (subPath !== '' && (subPath.startsWith('/') || normalize(subPath).startsWith('..'))) {
      throw new ConfigError(
        `failed to prepare subPath for volumeMount "${mount.name}" of container "${container.name}"`,
      );
    }
    if (volume.kind === 'docker') {
      if (subPath !== '') {
        throw new ConfigError(
          `subPath on an emptyDir volume ("${mount.name}") is not modelled by the double`,
        );
      }
      return { Type: 'volume', Source: volume.source, Target: mount.mountPath, ReadOnly: readOnly };
    }
    const source = subPath === '' ? volume.source : join(volume.source, subPath);
    return { Type: 'bind', Source: source, Target: mount.mountPath, ReadOnly: readOnly };
  });
}
